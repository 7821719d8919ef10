import Foundation

/// A shell script standing in for a tool that reaches a service tests cannot (yt-dlp for
/// YouTube and Rumble), written into `dir` as an executable named `name`.
public struct StandInExecutable: Sendable {
    public let path: String

    public init(dir: URL, name: String = "yt-dlp", script: String) throws {
        let file = dir.appendingPathComponent(name)
        try ("#!/bin/sh\n" + script).write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        path = file.path
    }
}
