// Values shown in `yaia run`, readable at any length: compact while a value
// fits the line, else a member or element a line, indented, each fitted the
// same way; a list of numbers, strings and the like fills its lines.
import Glibc
import YaiaCore
import YaiaKit

/// The columns of the terminal on standard output; else $COLUMNS; else 80.
func outputColumns() -> Int {
    var size = winsize()
    if isatty(1) != 0, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    if let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0 { return columns }
    return 80
}

extension JSON {
    /// The value for a line that has `used` columns taken, `indent` the
    /// indentation of the lines it breaks into, `width` the columns there are.
    func readable(indent: String, used: Int, width: Int) -> String {
        let compact = text
        guard used + compact.count > width else { return compact }
        let inner = indent + "  "
        switch self {
        case .array(let items) where !items.isEmpty && items.allSatisfy(\.isScalar):
            var lines: [String] = []
            var line = ""
            for item in items.map({ $0.text + "," }) {
                if !line.isEmpty, inner.count + line.count + 1 + item.count > width {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? item : " " + item
            }
            lines.append(String(line.dropLast()))
            return "[\n" + lines.map { inner + $0 }.joined(separator: "\n") + "\n" + indent + "]"
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + $0.readable(indent: inner, used: inner.count, width: width) }
                .joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let object) where !object.isEmpty:
            return "{\n" + object.members.map { member in
                let head = inner + JSON.string(member.key).text + ": "
                return head + member.value.readable(indent: inner, used: head.count, width: width)
            }.joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return compact
        }
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }
}
