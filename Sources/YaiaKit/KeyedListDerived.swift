// Parts derived from a KeyedList (a view model's rows, counts, a parent's
// children), kept up to date by its changes: after a change to one element,
// only that element's row or child is made again; the others are reused.

/// A row of a view model made from one element of a list, and from nothing
/// else: `KeyedList.rows` makes one per element and remakes it only when
/// its element changes. A row that needs more than its element (a
/// selection, a filter) belongs in another part of the view model.
public protocol KeyedListRow: JSONRepresentable {
    associatedtype Source
    init(_ source: Source)
}

/// The rows a view model shows for a list, as one JSON array. It encodes as
/// that array, as it is (no row is encoded again), in a `Codable` view
/// model as in one that writes its `json` by hand.
public struct ViewRows: JSONRepresentable, Encodable, Equatable, Sendable {
    public let json: JSON

    @usableFromInline
    init(_ json: JSON) { self.json = json }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(json)
    }

    public static func == (a: ViewRows, b: ViewRows) -> Bool {
        a.json.sharesStorage(with: b.json) || a.json == b.json
    }
}

extension KeyedList {
    /// The rows of the list, `Row(element)` for each element in order, as a
    /// JSON array. Made once for the whole list, then kept with the list:
    /// a later version of it makes the rows of the elements changed since,
    /// and changes the array where they are (a set, an insert, a remove).
    @inlinable
    public func rows<Row: KeyedListRow>(_ row: Row.Type) -> ViewRows where Row.Source == Element {
        ViewRows(derived(AnyHashable(ObjectIdentifier(Row.self)), build: { () -> JSON in
            var rows: [JSON] = []
            rows.reserveCapacity(count)
            order.forEach { _, element in
                rows.append(Row(element).json)
                return true
            }
            return .array(.init(rows))
        }, apply: { value, change in
            guard case .array(var rows) = value else { return }
            // Held only here, the array is changed in place.
            value = .null
            switch change {
            case .insert(let at, let element): rows.insert(Row(element).json, at: at)
            case .remove(let at, _): rows.remove(at: at)
            case .replace(let at, _, let element): rows[at] = Row(element).json
            }
            value = .array(rows)
        }))
    }

    /// The rows of the elements `isIncluded` accepts, in order: each row as
    /// `rows(_:)` keeps it, the filter a walk over the list.
    @inlinable
    public func rows<Row: KeyedListRow>(_ row: Row.Type, where isIncluded: (Element) -> Bool) -> ViewRows where Row.Source == Element {
        guard case .array(let all) = rows(row).json else { return ViewRows(.array([])) }
        var rows: [JSON] = []
        // One walk of the tree beside the rows, with no array of the
        // elements and no iterator of pairs.
        var each = all.makeIterator()
        order.forEach { _, element in
            guard let json = each.next() else { return false }
            if isIncluded(element) { rows.append(json) }
            return true
        }
        return ViewRows(.array(.init(rows)))
    }

    /// How many elements have `property` true: counted once, then kept up
    /// to date by the changes of the list.
    @inlinable
    public func count(matching property: KeyPath<Element, Bool>) -> Int {
        derived(AnyHashable(property), build: { () -> Int in
            var n = 0
            order.forEach { _, element in
                if element[keyPath: property] { n += 1 }
                return true
            }
            return n
        }, apply: { n, change in
            switch change {
            case .insert(_, let element): if element[keyPath: property] { n += 1 }
            case .remove(_, let element): if element[keyPath: property] { n -= 1 }
            case .replace(_, let old, let new): n += (new[keyPath: property] ? 1 : 0) - (old[keyPath: property] ? 1 : 0)
            }
        })
    }

    /// The children of the keyed slot `slot`, one per element in order,
    /// each keyed and given its args by `child`, which must read its
    /// element only (as a row does). Made once, then kept with the list: a
    /// later version remakes the children of the elements changed since,
    /// and an unchanged list gives back the very same array, which the pack
    /// glue finds equal to the last one at once rather than child by child.
    @inlinable
    public func children(_ slot: String, _ child: (Element) -> (key: JSON, args: JSON)) -> [Child] {
        func made(_ element: Element) -> Child {
            let (key, args) = child(element)
            return Child(slot: slot, key: key, args: args)
        }
        return derived(AnyHashable("children of \(slot)"), build: { () -> [Child] in
            var children: [Child] = []
            children.reserveCapacity(count)
            order.forEach { _, element in
                children.append(made(element))
                return true
            }
            return children
        }, apply: { children, change in
            switch change {
            case .insert(let at, let element): children.insert(made(element), at: at)
            case .remove(let at, _): children.remove(at: at)
            case .replace(let at, _, let element): children[at] = made(element)
            }
        })
    }
}
