import Foundation

/// The fuzz targets' checked-in inputs: seeds in Fuzz/Corpus/<target>/ and the crashers found,
/// kept in Fuzz/Regressions/<target>/ once fixed. Found from this file, so it works from any directory.
enum FuzzInputs {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// Every input of `target`, named by its path under Fuzz/.
    static func files(of target: String) -> [String] {
        ["Corpus", "Regressions"].flatMap { folder in
            let directory = root.appendingPathComponent(folder).appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(folder)/\(target)/\($0)" }
        }
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent(name)))
    }
}
