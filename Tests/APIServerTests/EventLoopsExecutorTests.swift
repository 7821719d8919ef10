import APIServer
import NIOPosix
import XCTest

/// `feedctl serve` runs its tasks on SwiftNIO's event loops (`EventLoopsExecutor`), so a
/// handler runs where its bytes arrived rather than on a second pool of threads.
final class EventLoopsExecutorTests: XCTestCase {
    func testTasksUnderThePreferenceRunOnTheEventLoops() async {
        let loops = MultiThreadedEventLoopGroup.singleton
        await Task.detached { XCTAssertNil(MultiThreadedEventLoopGroup.currentEventLoop, "the default pool is not a loop") }.value
        let seen = await withTaskExecutorPreference(EventLoopsExecutor(loops)) { () async -> [Bool] in
            var seen = [MultiThreadedEventLoopGroup.currentEventLoop != nil]
            // A child task (a connection's, in Hummingbird's task group) inherits the preference,
            // and so does what resumes after a suspension.
            seen += await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { MultiThreadedEventLoopGroup.currentEventLoop != nil } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            try? await Task.sleep(for: .milliseconds(5))
            seen.append(MultiThreadedEventLoopGroup.currentEventLoop != nil)
            return seen
        }
        XCTAssertEqual(seen, Array(repeating: true, count: 10))
    }
}
