/// Checking text that is handed on as it is (a scene pack's canonical view
/// model): the same verdict as `parse`, without building the value.
extension JSONParser {
    /// Throws what `parse` would throw for `bytes`, and builds nothing.
    package static func check(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth) throws(YaiaError) {
        try withParser(bytes, maxDepth: maxDepth) { (parser) throws(Stop) in
            parser.skipSpace()
            try parser.skipValue(depth: 0)
            parser.skipSpace()
            if parser.index < bytes.count {
                throw parser.unexpectedAfterValue()
            }
        }
    }
}
