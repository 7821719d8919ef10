import XCTest

// XCTest's assertions take synchronous autoclosures: these take expressions that await (a store
// call), evaluated on the caller's actor. An expression that throws is a failure, as in XCTest.

public nonisolated(nonsending) func assertEqual<T: Equatable>(
    _ expression1: @autoclosure () async throws -> T, _ expression2: @autoclosure () async throws -> T,
    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line
) async {
    do {
        let (first, second) = (try await expression1(), try await expression2())
        XCTAssertEqual(first, second, message(), file: file, line: line)
    } catch {
        XCTFail(threw(error, message()), file: file, line: line)
    }
}

public nonisolated(nonsending) func assertTrue(
    _ expression: @autoclosure () async throws -> Bool, _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) async {
    do {
        let value = try await expression()
        XCTAssertTrue(value, message(), file: file, line: line)
    } catch {
        XCTFail(threw(error, message()), file: file, line: line)
    }
}

public nonisolated(nonsending) func assertFalse(
    _ expression: @autoclosure () async throws -> Bool, _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) async {
    do {
        let value = try await expression()
        XCTAssertFalse(value, message(), file: file, line: line)
    } catch {
        XCTFail(threw(error, message()), file: file, line: line)
    }
}

public nonisolated(nonsending) func assertNil<T>(
    _ expression: @autoclosure () async throws -> T?, _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) async {
    do {
        let value = try await expression()
        XCTAssertNil(value, message(), file: file, line: line)
    } catch {
        XCTFail(threw(error, message()), file: file, line: line)
    }
}

/// Fails unless `body` throws `expected` (an error equal to it).
public nonisolated(nonsending) func assertThrows<T, E: Error & Equatable>(
    _ expected: E, _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> T
) async {
    do {
        let value = try await body()
        XCTFail("threw nothing (returned \(value)), expected \(expected)\(suffix(message()))", file: file, line: line)
    } catch let error as E {
        XCTAssertEqual(error, expected, message(), file: file, line: line)
    } catch {
        XCTFail("threw \(error), expected \(expected)\(suffix(message()))", file: file, line: line)
    }
}

/// Fails unless `body` throws an error of type `type`.
public nonisolated(nonsending) func assertThrows<T, E: Error>(
    _ type: E.Type, _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> T
) async {
    do {
        let value = try await body()
        XCTFail("threw nothing (returned \(value)), expected a \(type)\(suffix(message()))", file: file, line: line)
    } catch is E {
    } catch {
        XCTFail("threw \(error), expected a \(type)\(suffix(message()))", file: file, line: line)
    }
}

/// `XCTUnwrap` for an expression that awaits.
public nonisolated(nonsending) func unwrap<T>(
    _ expression: @autoclosure () async throws -> T?, _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) async throws -> T {
    let value = try await expression()
    return try XCTUnwrap(value, message(), file: file, line: line)
}

private func threw(_ error: any Error, _ message: String) -> String { "threw \(error)\(suffix(message))" }
private func suffix(_ message: String) -> String { message.isEmpty ? "" : " - \(message)" }
