import Testing

/// A refused flag's message goes to stderr, which a container's runtime keeps with its logs:
/// it names the flag, never the value given with it. `--admin-token=…` is the mistake to
/// expect: the server takes its token from a file or the environment only, since `ps` shows
/// flags to every user.
@Suite("Unknown options")
struct UnknownOptionTests {
    @Test("An unknown flag given as --flag=value is named without its value")
    func valueIsNotEchoed() throws {
        let secret = "secret-0123456789-abcdefghijklmnopqrstuvwxyz"
        let run = try ServerProcess.run(["--admin-token=\(secret)"])
        #expect(run.status == 2)
        #expect(run.errors.contains("unknown option --admin-token"), "\(run.errors)")
        #expect(!run.errors.contains(secret) && !run.output.contains(secret), "the token was printed: \(run.errors)")
    }
}
