import YaiaKit

extension RuntimeState {
    /// Where scene `id`'s view model sits in its top scene's view model, as
    /// the runtime composes it (`viewModel(of:)`): its slot's member, then,
    /// in a keyed slot, its position in the state's order, from the top
    /// down (`/rows/4/notes`). A position, not a key: a host's copy of the
    /// view model holds lists. Nil for a scene without a parent. O(depth):
    /// positions are looked up, not searched.
    func viewPointer(of id: Int64) -> String? {
        var tokens: [String] = []
        var current = id
        while let link = scenes[current]?.link {
            if link.keyed {
                guard let i = children[link.parent]?[link.slot]?.position(of: link.key) else { return nil }
                tokens.append(String(i))
            }
            tokens.append(link.slot)
            current = link.parent
            // A cycle cannot happen (links are made parents first); bounded all the same.
            guard tokens.count <= 2 * (childDepthLimit + 1) else { return nil }
        }
        guard !tokens.isEmpty else { return nil }
        return tokens.reversed().reduce("") { JSONPointer.appending($0, $1) }
    }
}
