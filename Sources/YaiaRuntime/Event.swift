import YaiaKit

/// An event: a JSON value, or its canonical text.
enum Event: Sendable {
    case json(JSON)
    case text(JSONText)

    var value: JSON {
        switch self {
        case .json(let json): return json
        case .text(let text): return (try? JSONParser.parse(text.bytes)) ?? .null
        }
    }

    /// The event's text, malloc'd and NUL-terminated, owned by the caller:
    /// a queued text's own memory when the event was its only holder.
    consuming func cString() -> UnsafeMutablePointer<CChar>? {
        switch consume self {
        case .json(let json):
            var writer = JSONWriter()
            writer.write(json)
            return writer.takeCString()
        case .text(var text): return JSONText.takeCString(&text)
        }
    }
}
