import ArgumentParser
import FeedModel
import Foundation
import LibraryStore

/// Shell completion of library ids: the shell runs `feedctl` to ask, and this reads the library
/// the command line names (`--db`, else `$FEEDCTL_DB` or the default), never creating one.
extension CompletionKind {
    /// The newest items' ids (the feed's first page), those starting with what was typed first.
    public static var itemIDs: CompletionKind {
        .custom { words, _, prefix in
            IDCompletion.blocking {
                guard let library = await IDCompletion.library(words) else { return [] }
                let items = (try? await library.feed(FeedQuery(page: .first(200)), now: Clock.now())) ?? []
                return IDCompletion.matching(items.map(\.id), prefix)
            }
        }
    }

    /// Every channel's id.
    public static var channelIDs: CompletionKind {
        .custom { words, _, prefix in
            IDCompletion.blocking {
                guard let library = await IDCompletion.library(words) else { return [] }
                let channels = (try? await library.allChannels()) ?? []
                return IDCompletion.matching(channels.map(\.id), prefix)
            }
        }
    }
}

enum IDCompletion {
    /// Synchronous, so that every command (synchronous ones too) can complete ids: the
    /// completion process does nothing else meanwhile.
    static func blocking(_ work: @escaping @Sendable () async -> [String]) -> [String] {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<[String]>([])
        Task.detached {
            let found = await work()
            result.update { $0 = found }
            done.signal()
        }
        done.wait()
        return result.value
    }

    static func library(_ words: [String]) async -> (any UserLibrary)? {
        var path: String?
        for (index, word) in words.enumerated() {
            if word == "--db", index + 1 < words.count { path = words[index + 1] }
            if word.hasPrefix("--db=") { path = String(word.dropFirst(5)) }
        }
        var options = LibraryOptions()
        options.db = path
        return try? await options.open()
    }

    static func matching(_ ids: [Int64], _ prefix: String) -> [String] {
        ids.map(String.init).filter { $0.hasPrefix(prefix) }
    }
}
