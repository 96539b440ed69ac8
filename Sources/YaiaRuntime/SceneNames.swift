// Scene type names, as packs, documents and slots give them.

/// "app/login": ASCII letters, digits and `._-/`, 1 to 128 bytes.
func isValidSceneName(_ name: String) -> Bool {
    let bytes = name.utf8
    guard !bytes.isEmpty, bytes.count <= 128 else { return false }
    return bytes.allSatisfy { b in
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D || b == 0x2F
    }
}
