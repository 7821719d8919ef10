import Foundation

/// The synthetic corpus generator, `scripts/gen_corpus.py` (deterministic: the same arguments
/// give byte-identical files, with their ground truth in `manifest.json`).
public enum Corpus {
    public static let generator = PackagePaths.root.appendingPathComponent("scripts/gen_corpus.py")

    /// Runs the generator into `dir` (replacing what is there), bounded by ProcessRunner's time limit.
    public static func generate(into dir: URL, _ arguments: [String]) throws {
        _ = try ProcessRunner.run("python3", [generator.path, dir.path, "--force"] + arguments)
    }
}
