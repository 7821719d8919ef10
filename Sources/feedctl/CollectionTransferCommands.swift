import ArgumentParser
import CLISupport
import FeedModel
import LibraryStore

// `collection copy|move` and `collection targets`: the store's `CollectionTransfer`, with
// collections named as the CLI names them.
extension CollectionCommand {
    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy items to another collection (one transaction; those already there are skipped).",
            discussion: "Items already in the target are counted as duplicates; items not in the source are reported and the rest is done (exit status 2).")
        @OptionGroup var transfer: TransferOptions
        func run() async throws { try await transfer.run(.copy) }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move items to another collection (one transaction; those already there stay where they are).",
            discussion: "As copy, and the items leave the source.")
        @OptionGroup var transfer: TransferOptions
        func run() async throws { try await transfer.run(.move) }
    }

    struct Targets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The collections a collection's items may be copied or moved to.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Name.") var name: String
        func run() async throws {
            try await runReporting {
                let store = try await library.open()
                let targets = try await store.collectionTargets(of: try await TransferOptions.collectionID(name, store))
                if output.json { return try printJSON(targets) }
                if targets.isEmpty { print("no other collection: feedctl collection create NAME"); return }
                for target in targets {
                    let count = Formats.count(target.collection.itemCount, "item")
                    print("\(Terminal.printable(target.collection.name))  (\(count)\(target.hasItems ? "; holds some of these already" : ""))")
                }
            }
        }
    }
}

/// What `collection copy` and `collection move` take.
struct TransferOptions: ParsableArguments {
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "The collection the items are in.") var from: String
    @Option(help: "The collection they go to.") var to: String
    @Option(help: "Every item of this channel (repeatable).", completion: .channelIDs) var channel: [Int64] = []
    @Option(name: .customLong("collection"), help: "Every item of this collection (repeatable).") var collections: [String] = []
    @Flag(help: "Keep each item's place in the source and when it was added (else appended, added now).") var preserveMetadata = false
    @Argument(help: "Item ids (of the source).", completion: .itemIDs) var ids: [Int64] = []

    func validate() throws {
        if ids.isEmpty && channel.isEmpty && collections.isEmpty {
            throw ValidationError("name the items: item ids, --channel ID or --collection NAME")
        }
    }

    func run(_ operation: CollectionTransfer.Operation) async throws {
        try await runReporting {
            let store = try await library.open()
            var subjects = ids.map(TransferSubject.item) + channel.map { TransferSubject(.channel, $0) }
            for name in collections { subjects.append(TransferSubject(.collection, try await Self.collectionID(name, store))) }
            let transfer = try CollectionTransfer(operation, from: try await Self.collectionID(from, store), to: try await Self.collectionID(to, store),
                                                  subjects: subjects, preserveMetadata: preserveMetadata)
            let result = try await store.transfer(transfer, now: Clock.now())
            if output.json {
                try printJSON(TransferJSON(result))
            } else {
                // One line per outcome; each item not found on its own line, on stderr.
                result.outcomes.forEach { print(Terminal.printable($0)) }
                result.failures.forEach { printError($0.error.description) }
            }
            if !result.failures.isEmpty {
                throw PartialFailure("\(Formats.count(result.failures.count, "item")) not found; the rest was \(operation.pastTense)")
            }
        }
    }

    /// The id of the user's collection `name`.
    static func collectionID(_ name: String, _ store: any UserLibrary) async throws(LibraryError) -> Int64 {
        guard let found = try await store.collectionDetails().first(where: { $0.name == name }) else { throw .noCollection(name) }
        return found.id
    }
}

/// `collection copy|move --json`: the API's bulk answer, with the ids.
struct TransferJSON: Encodable {
    struct Failure: Encodable {
        var itemID: Int64
        var itemType: String
        var error: String
        enum CodingKeys: String, CodingKey { case itemID = "item_id", itemType = "item_type", error }
    }
    var operation: String
    var source: String
    var target: String
    var itemsAffected: [Int64]
    var duplicatesSkipped: [Int64]
    var errors: [Failure]

    init(_ result: CollectionTransferResult) {
        operation = result.operation.rawValue; source = result.source.name; target = result.target.name
        itemsAffected = result.affected; duplicatesSkipped = result.duplicates
        errors = result.failures.map { Failure(itemID: $0.subject.id, itemType: $0.subject.kind.rawValue, error: $0.error.description) }
    }
    enum CodingKeys: String, CodingKey {
        case operation, source, target, errors, itemsAffected = "items_affected", duplicatesSkipped = "duplicates_skipped"
    }
}
