import FeedModel

/// What a copy or a move between collections names (the API's `item_type`): one item of the
/// source, or every item of a channel or of a collection, which the store expands.
public struct TransferSubject: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        /// An item of the source collection.
        case item
        /// The channel's items the user can see (every item of a channel they follow; of one
        /// they left, those in their collections), in publication order, undated ones last.
        case channel
        /// One of the user's collections' items, in its order.
        case collection
    }

    public var kind: Kind
    public var id: Int64

    public init(_ kind: Kind, _ id: Int64) { self.kind = kind; self.id = id }

    public static func item(_ id: Int64) -> TransferSubject { TransferSubject(.item, id) }
}

/// A copy or a move of items from one of the user's collections to another
/// (`CollectionStore.transfer`), valid once made: two different collections, 1 to
/// `CollectionRule.maxTransferSubjects` subjects (a repeat counts once). The rules, stated here
/// and applied by `TransferPlan` for both engines:
/// - each subject stands for items (`TransferSubject`); an item named twice is taken once;
/// - a subject that names nothing the user may take (an item not in the source, a channel they
///   cannot see, a collection that is not theirs) fails alone: the others go ahead;
/// - an item already in the target is a duplicate: skipped, left where it is (a move leaves it
///   in the source too);
/// - `copy` puts the items at the target's end, in the order named, added now; `move` also
///   takes them out of the source (those that were in it);
/// - with `preserveMetadata`, an item from the source keeps its place there (its position, or
///   the end when the target is shorter) and when it was added; any other is appended. (A
///   collection's entries hold nothing else of their own: notes are the saved video's.)
/// - all of it in one transaction; more than `CollectionRule.maxTransferItems` items, once
///   expanded, refuses the whole transfer.
public struct CollectionTransfer: Sendable, Equatable {
    public enum Operation: String, Sendable, CaseIterable {
        case copy, move

        /// "copied" or "moved", for messages.
        public var pastTense: String { self == .copy ? "copied" : "moved" }
    }

    public let operation: Operation
    public let source: Int64
    public let target: Int64
    public let subjects: [TransferSubject]
    public let preserveMetadata: Bool

    public init(_ operation: Operation, from source: Int64, to target: Int64, subjects: [TransferSubject],
                preserveMetadata: Bool = false) throws(LibraryError) {
        guard source != target else {
            throw .invalid("the source and the target are the same collection: \(operation.rawValue) to another one")
        }
        guard !subjects.isEmpty else { throw .invalid("name at least one item to \(operation.rawValue)") }
        let max = CollectionRule.maxTransferSubjects
        guard subjects.count <= max else {
            throw .invalid("a \(operation.rawValue) names at most \(max) items at once (got \(subjects.count)): split it")
        }
        var seen = Set<TransferSubject>()
        self.operation = operation; self.source = source; self.target = target
        self.subjects = subjects.filter { seen.insert($0).inserted }
        self.preserveMetadata = preserveMetadata
    }
}

/// What a transfer did: the collections as they are after it, and what became of each item.
public struct CollectionTransferResult: Sendable, Equatable {
    public var operation: CollectionTransfer.Operation
    public var source: CollectionDetails
    public var target: CollectionDetails
    /// The items copied or moved, in the order named.
    public var affected: [Int64]
    /// Items already in the target, left where they were.
    public var duplicates: [Int64]
    /// Subjects that named nothing the user may take, each with why.
    public var failures: [TransferFailure]

    public init(_ operation: CollectionTransfer.Operation, source: CollectionDetails, target: CollectionDetails, affected: [Int64],
                duplicates: [Int64], failures: [TransferFailure]) {
        self.operation = operation; self.source = source; self.target = target; self.affected = affected; self.duplicates = duplicates
        self.failures = failures
    }

    /// What it did, a phrase per outcome (the CLI prints a line each): `copied 3 items to "B"`,
    /// and `skipped 1 duplicate (already in "B")` when there were any.
    public var outcomes: [String] {
        let target = LibraryError.quoted(self.target.name)
        var phrases = ["\(operation.pastTense) \(Self.count(affected.count, "item")) to \(target)"]
        if !duplicates.isEmpty { phrases.append("skipped \(Self.count(duplicates.count, "duplicate")) (already in \(target))") }
        return phrases
    }

    /// The outcomes and how many subjects were not found, in one line (the API's `message`).
    public var summary: String {
        (outcomes + (failures.isEmpty ? [] : ["\(failures.count) not found"])).joined(separator: "; ")
    }

    private static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}

/// A subject of a transfer that was not taken, and why (`noCollectionID`, `noChannel`, `notInCollection`).
public struct TransferFailure: Sendable, Equatable {
    public var subject: TransferSubject
    public var error: LibraryError

    public init(_ subject: TransferSubject, _ error: LibraryError) { self.subject = subject; self.error = error }
}

/// Where a transfer's items go (`CollectionTransfer`'s rules), decided from what a store read
/// in the transaction: pure, so both engines do the same and only read and write.
public struct TransferPlan: Sendable, Equatable {
    /// An item of the source collection, at its place.
    public struct SourceEntry: Sendable, Equatable {
        public var item: Int64
        public var position: Int
        public var addedAt: Int64
        public init(item: Int64, position: Int, addedAt: Int64) { self.item = item; self.position = position; self.addedAt = addedAt }
    }

    /// An entry for the target.
    public struct NewEntry: Sendable, Equatable {
        public var item: Int64
        public var addedAt: Int64
    }

    /// The target's new entries, to append in this order.
    public private(set) var added: [NewEntry] = []
    /// The target's items in their final order when the new ones are not all at its end (kept
    /// places); nil when appending `added` is all.
    public private(set) var targetOrder: [Int64]?
    /// Items to take out of the source (a move's).
    public private(set) var removed: [Int64] = []
    public private(set) var affected: [Int64] = []
    public private(set) var duplicates: [Int64] = []
    public private(set) var failures: [TransferFailure] = []

    /// - Parameters:
    ///   - sourceName: the source's name, for `notInCollection`.
    ///   - source: the source's entries.
    ///   - target: the target's items in order.
    ///   - expanded: each channel or collection subject's items; one missing is not the user's.
    public init(_ transfer: CollectionTransfer, sourceName: String, source: [SourceEntry], target: [Int64],
                expanded: [TransferSubject: [Int64]], now: Int64) throws(LibraryError) {
        let inSource = Dictionary(source.map { ($0.item, $0) }, uniquingKeysWith: { a, _ in a })
        var named: [Int64] = []
        var seen = Set<Int64>()
        for subject in transfer.subjects {
            let items: [Int64]
            switch subject.kind {
            case .item:
                guard inSource[subject.id] != nil else {
                    failures.append(TransferFailure(subject, .notInCollection(item: subject.id, collection: sourceName)))
                    continue
                }
                items = [subject.id]
            case .channel, .collection:
                guard let found = expanded[subject] else {
                    failures.append(TransferFailure(subject, subject.kind == .channel ? .noChannel(subject.id) : .noCollectionID(subject.id)))
                    continue
                }
                items = found
            }
            for item in items where seen.insert(item).inserted { named.append(item) }
        }
        let max = CollectionRule.maxTransferItems
        guard named.count <= max else {
            throw .invalid("a \(transfer.operation.rawValue) takes at most \(max) items at once (these come to \(named.count)): split it")
        }
        let inTarget = Set(target)
        for item in named {
            if inTarget.contains(item) { duplicates.append(item) } else { affected.append(item) }
        }
        let preserve = transfer.preserveMetadata
        added = affected.map { NewEntry(item: $0, addedAt: preserve ? inSource[$0]?.addedAt ?? now : now) }
        if transfer.operation == .move { removed = affected.filter { inSource[$0] != nil } }
        if preserve {
            let placed = affected.compactMap { inSource[$0] }.sorted { $0.position < $1.position }
            guard !placed.isEmpty else { return }
            // In the source's order, each at its position there: the ones before it are placed first.
            var order = target
            for entry in placed { order.insert(entry.item, at: min(Swift.max(entry.position - 1, 0), order.count)) }
            order += affected.filter { inSource[$0] == nil }
            if order != target + affected { targetOrder = order }
        }
    }
}

/// A collection the user may copy or move another's items to (`CollectionStore.collectionTargets`).
/// Its JSON (`{id, name, item_count, has_items}`) is the API's available targets and
/// `collection targets --json`.
public struct CollectionTarget: Sendable, Equatable, Encodable {
    public var collection: CollectionDetails
    /// It holds one or more of the source's items already (those would be duplicates).
    public var hasItems: Bool

    public init(collection: CollectionDetails, hasItems: Bool) { self.collection = collection; self.hasItems = hasItems }

    enum CodingKeys: String, CodingKey { case id, name, itemCount = "item_count", hasItems = "has_items" }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(collection.id, forKey: .id); try c.encode(collection.name, forKey: .name)
        try c.encode(collection.itemCount, forKey: .itemCount); try c.encode(hasItems, forKey: .hasItems)
    }
}

extension CollectionStore {
    /// One item of collection `source` copied or moved to `target` (`CollectionTransfer`): an
    /// item not in the source is `notInCollection`, and one in the target already
    /// `alreadyInCollection`; either changes nothing.
    @discardableResult
    public func transfer(item: Int64, _ operation: CollectionTransfer.Operation, from source: Int64, to target: Int64,
                         preserveMetadata: Bool = false, now: Int64) async throws(LibraryError) -> CollectionTransferResult {
        let transfer = try CollectionTransfer(operation, from: source, to: target, subjects: [.item(item)], preserveMetadata: preserveMetadata)
        let result = try await self.transfer(transfer, now: now)
        if let failure = result.failures.first { throw failure.error }
        if !result.duplicates.isEmpty { throw .alreadyInCollection(item: item, collection: result.target.name) }
        return result
    }
}
