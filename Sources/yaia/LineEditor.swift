// A small line editor for `yaia run` on a terminal: the cursor moves with the
// arrows, Home/End and ctrl-a/e; backspace, delete, ctrl-k and ctrl-u
// delete; up and down walk the history; tab completes the first word.
// Standard input that is no terminal is read line by line as it is.
import Glibc

final class LineEditor {
    private(set) var history: [String] = []
    /// The words tab completes at the start of a line.
    var completions: [String] = []
    let interactive: Bool

    init() { interactive = isatty(0) != 0 && isatty(1) != 0 }

    /// The next line, nil at the end of input (ctrl-d on an empty line).
    func readLine(prompt: String) -> String? {
        guard interactive else {
            guard let line = Swift.readLine(strippingNewline: true) else { return nil }
            // A transcript shows what was typed, as a terminal would.
            Out.stdout(prompt + line + "\n")
            return line
        }
        var saved = termios()
        guard tcgetattr(0, &saved) == 0 else { return Swift.readLine(strippingNewline: true) }
        var raw = saved
        // ISIG off: ctrl-c reaches the editor as a byte, which drops the line, and does not end the session.
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN | ISIG)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSADRAIN, &raw)
        defer { tcsetattr(0, TCSADRAIN, &saved) }
        let line = edit(prompt: prompt)
        if let line, !line.isEmpty, history.last != line { history.append(line) }
        return line
    }

    private func edit(prompt: String) -> String? {
        var line: [Unicode.Scalar] = []
        var cursor = 0
        var walk = history.count // the history entry shown; history.count is the new line
        var draft: [Unicode.Scalar] = []
        func redraw() {
            var text = "\r" + prompt + String(String.UnicodeScalarView(line)) + "\u{1B}[K"
            let back = line.count - cursor
            if back > 0 { text += "\u{1B}[\(back)D" }
            Out.stdout(text)
        }
        func show(_ entry: Int) {
            if walk == history.count { draft = line }
            walk = entry
            line = entry == history.count ? draft : Array(history[entry].unicodeScalars)
            cursor = line.count
        }
        redraw()
        var decoder = UTF8Bytes()
        while let byte = readByte() {
            switch byte {
            case 0x0D, 0x0A: // enter
                Out.stdout("\r\n")
                return String(String.UnicodeScalarView(line))
            case 0x04: // ctrl-d: the end on an empty line, else delete
                if line.isEmpty { Out.stdout("\r\n"); return nil }
                if cursor < line.count { line.remove(at: cursor) }
            case 0x03: // ctrl-c: drop the line
                Out.stdout("^C\r\n")
                line = []
                cursor = 0
                walk = history.count
            case 0x01: cursor = 0
            case 0x05: cursor = line.count
            case 0x02: cursor = max(0, cursor - 1)
            case 0x06: cursor = min(line.count, cursor + 1)
            case 0x0B: line.removeSubrange(cursor...)
            case 0x15:
                line.removeSubrange(..<cursor)
                cursor = 0
            case 0x7F, 0x08: // backspace
                if cursor > 0 {
                    line.remove(at: cursor - 1)
                    cursor -= 1
                }
            case 0x09: complete(&line, &cursor)
            case 0x10: if walk > 0 { show(walk - 1) } // ctrl-p
            case 0x0E: if walk < history.count { show(walk + 1) } // ctrl-n
            case 0x1B:
                switch escapeSequence() {
                case "[A", "OA": if walk > 0 { show(walk - 1) }
                case "[B", "OB": if walk < history.count { show(walk + 1) }
                case "[C", "OC": cursor = min(line.count, cursor + 1)
                case "[D", "OD": cursor = max(0, cursor - 1)
                case "[H", "OH", "[1~", "[7~": cursor = 0
                case "[F", "OF", "[4~", "[8~": cursor = line.count
                case "[3~": if cursor < line.count { line.remove(at: cursor) }
                default: break
                }
            default:
                guard byte >= 0x20, let scalar = decoder.add(byte) else { continue }
                line.insert(scalar, at: cursor)
                cursor += 1
            }
            redraw()
        }
        return nil
    }

    /// Completes the first word among `completions`, as far as they agree.
    private func complete(_ line: inout [Unicode.Scalar], _ cursor: inout Int) {
        guard cursor == line.count, !line.contains(" ") else { return }
        let typed = String(String.UnicodeScalarView(line))
        let matches = completions.filter { $0.hasPrefix(typed) }
        guard var common = matches.first else { return }
        for match in matches.dropFirst() {
            while !match.hasPrefix(common) { common.removeLast() }
        }
        if matches.count == 1 { common += " " }
        if common.unicodeScalars.count > line.count {
            line = Array(common.unicodeScalars)
            cursor = line.count
        } else if matches.count > 1 {
            Out.stdout("\r\n" + matches.joined(separator: "  ") + "\r\n")
        }
    }

    /// The bytes after an escape: "[A", "[3~", "OH".
    private func escapeSequence() -> String {
        guard let first = readByte() else { return "" }
        var sequence = String(UnicodeScalar(first))
        guard first == 0x5B || first == 0x4F else { return sequence }
        while let next = readByte() {
            sequence.append(Character(UnicodeScalar(next)))
            if (next >= 0x40 && next <= 0x7E) || sequence.count > 8 { break }
        }
        return sequence
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n == 1 { return byte }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
    }
}

/// Gathers UTF-8 bytes into scalars; invalid sequences are dropped.
struct UTF8Bytes {
    private var pending: [UInt8] = []

    mutating func add(_ byte: UInt8) -> Unicode.Scalar? {
        if pending.isEmpty && byte < 0x80 { return Unicode.Scalar(byte) }
        pending.append(byte)
        let need = pending[0] >= 0xF0 ? 4 : pending[0] >= 0xE0 ? 3 : pending[0] >= 0xC0 ? 2 : 1
        guard pending.count >= need else { return nil }
        defer { pending = [] }
        return String(validating: pending, as: UTF8.self)?.unicodeScalars.first
    }
}
