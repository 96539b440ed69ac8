/// "1 character", "2 characters": a count and its noun, for messages that
/// count things (a limit or a length may well be 1).
package func counted(_ count: some BinaryInteger, _ noun: String) -> String {
    count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
}
