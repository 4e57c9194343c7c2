#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Dispatch
import MicroHTTP
import Presentation
import PresentationAPI
import SessionStorage
import Synchronization

// The executable: read options, wire store, API and HTTP server, stop cleanly on signals.

// The stop signals are blocked here, before any other thread exists, so that every thread
// inherits the block and the only taker of a stop signal is `StopSignals`' thread, in
// `sigwait` (it says why that, and not libdispatch's signal sources). Unblocked, a signal
// went to whichever thread did not block it.
// Ignored here too: setting SIG_IGN discards a signal already pending (POSIX), and `docker
// stop` during a long restore was lost when something set it later. Blocked, a signal is kept
// pending, ignored or not, and `sigwait` takes it.
// SIGQUIT (Ctrl-\ at a terminal) too: its default action dumped core and lost the access
// log's waiting batch and the idle deadlines the stop writes; whoever sends it wants an end.
// SIGHUP too: a terminal closed under `make run` sends it, and its default action lost the
// access log's waiting batch and the journal's clean close. There is nothing to reload.
let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
var blockedSignals = sigset_t()
sigemptyset(&blockedSignals)
for number in stopSignals { sigaddset(&blockedSignals, number) }
pthread_sigmask(SIG_BLOCK, &blockedSignals, nil)
for number in stopSignals { signal(number, SIG_IGN) }

// Taken from here on: a signal that comes while start-up runs is kept (`StopTarget`) and
// stops the server once it is wired. Stopping may take locks, which a handler could not.
let stopTarget = StopTarget()
StopSignals.take(stopSignals) { [stopTarget] number in stopTarget.signalled(number) }

// Before the options: the default connection limit is what the descriptor limit leaves room for.
DescriptorRoom.raiseSoftLimit()

let options: Options
do {
    guard let parsed = try Options.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    else {
        Help.show()
    }
    options = parsed
} catch {
    Log.standardError("presentation-server: \(error)")
    exit(2)
}

signal(SIGPIPE, SIG_IGN)
// A write past a file-size limit (`ulimit -f`, systemd's `LimitFSIZE=`) would end the process
// with SIGXFSZ, unannounced, mid-change; ignored, it fails with EFBIG, SQLite reports an I/O
// error, and the change is refused (503 `storage_failed`) and not made, as any write that fails.
signal(SIGXFSZ, SIG_IGN)
Log.output.setDelay(options.accessLogDelay)
// nil when the path is not a directory: the API is served all the same, unless the operator
// named that path.
/// Stops the start on a setting the server cannot use, as a bad value is: one line, status 2.
func refuse(_ refusal: OptionsError?) {
    guard let refusal else { return }
    Log.standardError("presentation-server: \(refusal)")
    exit(2)
}
let staticFiles = try? StaticFiles(root: options.publicDirectory)
if staticFiles == nil {
    refuse(options.missingPublicDirectoryRefusal())
    Log.info("no_public_directory", [("path", .string(options.publicDirectory))])
}
refuse(staticFiles.flatMap { options.servedSecretRefusal(publicRoot: $0.resolvedRoot) })
// Sessions hold what users typed: the files the server makes (the database, its log, the lock
// file) are its user's alone, whatever the data directory's mode (a bind mount's is its
// owner's choice, 0755 by default). SQLite gives the log the database file's mode.
umask(0o077)
// A data directory under the public one is refused as a setting the server cannot use (exit
// 2), before it listens. Asked before the store opens it, so that a refused start leaves the
// directory untouched, or unmade (no database made, no expired session removed), and again
// once the store has opened it, of the directory as it was made.
refuse(staticFiles.flatMap { options.servedDataRefusal(publicRoot: $0.resolvedRoot) })
let (store, journal) = StoreSetup.open(options)
refuse(staticFiles.flatMap { options.servedDataRefusal(publicRoot: $0.resolvedRoot) })
let sweep = StoreSetup.startSweep(store, every: StoreSetup.sweepInterval(options.limits))
let api = PresentationAPI(store: store, configuration: options.api, staticFiles: staticFiles)
let accessLog = options.accessLog
let server = HTTPServer(
    configuration: options.server, handler: api,
    libraryLog: { message in
        api.record(message)
        Log.library(message)
    }
) { record in
    api.record(record)
    if accessLog { Log.request(record) }
}

let port: UInt16
do {
    port = try server.start()
} catch {
    Log.error("start_failed", [("reason", .string(error.description))])
    // For the person at the terminal too, as a storage failure is: a busy port is common.
    Log.standardError("presentation-server: \(error.description)")
    exit(1)
}
let certificate = options.server.tls.flatMap { CertificateValidity(pem: $0.certificatePEM) }
Log.info(
    "listening",
    [
        ("host", .string(options.server.host)), ("port", .int(Int(port))),
        ("scheme", .string(options.server.tls == nil ? "http" : "https")), ("threads", .int(options.server.threads)),
        ("storage", .string(options.storage.rawValue)), ("max_memory", .int(options.maxMemoryBytes ?? 0)),
    ] + (certificate.map { [("tls_not_after", .string($0.notAfterText))] } ?? []))
// GnuTLS serves an expired certificate without a word, and clients that check refuse every
// handshake with nothing in this log to say why: say it here (CertificateValidity says why
// this is not a refusal).
if let certificate {
    let now = Int(Date().timeIntervalSince1970)
    if certificate.hasExpired(at: now) {
        Log.warning("tls_certificate_expired", [("tls_not_after", .string(certificate.notAfterText))])
    } else if certificate.isNotYetValid(at: now) {
        Log.warning("tls_certificate_not_yet_valid", [("tls_not_before", .string(certificate.notBeforeText))])
    }
}

// A server that starts at its memory bound refuses every new session: say so where the
// operator looks, rather than leave them to find it in the 503s (a container's limit too small
// for the server and its sessions: three quarters of it is the default bound).
if let limit = options.maxMemoryBytes, let resident = ProcessMemory.residentBytes, resident >= limit {
    Log.warning(
        "memory_limit_reached", [("resident_bytes", .int(resident)), ("max_memory", .int(limit)), ("sessions", .int(store.count))])
}

// A connection limit the operator set past what the descriptor limit leaves room for is
// used as given, but clients can then run the process out of descriptors (DescriptorRoom says
// what follows): say so at start, where it can still be changed.
if options.given("--max-connections"), let room = DescriptorRoom.connections(threads: options.server.threads),
    options.server.connectionLimit > room
{
    Log.warning(
        "connections_past_descriptor_limit",
        [("max_connections", .int(options.server.connectionLimit)), ("descriptor_room", .int(room))])
}

// Wired: from here a stop signal stops the server (one that came during start-up, now).
stopTarget.arm(StopTarget.Parts(api: api, server: server, sweep: sweep, store: store, journal: journal))

// Nothing signals this: the stop ends the process. The main thread only waits: under
// `dispatchMain()`, valgrind (3.19) died in libdispatch's `sigsuspend`, and callgrind over the
// real server is how its instructions per request are counted (docs/performance.md).
let forever = DispatchSemaphore(value: 0)
forever.wait()

/// A clean stop, then the process's end: 0, or 1 when what it held could not be written.
func stopAndExit(
    _ api: PresentationAPI, _ server: HTTPServer, _ sweep: RepeatingWork, _ store: InMemorySessionStore,
    _ journal: SQLiteJournal?
) -> Never {
    api.beginShutdown()
    server.stop()
    sweep.cancel()
    // What the stop could not write makes it an unclean one: exit 1, with the reasons on
    // the last line, so that a supervisor and whoever stopped it see more than a clean 0.
    var failures: [String] = []
    // Reads move idle deadlines in memory only, until the sweep writes them (up to 30 s
    // later): unwritten, the restarted server would expire a session read meanwhile early.
    do {
        try store.writeLeases()
    } catch {
        Log.error("lease_write_failed", [("reason", .string(failureReason(error)))])
        failures.append("the idle deadlines reads moved were not written")
    }
    // After a failed fsync, what the disk holds of the last writes is unknown (README, Storage).
    if store.journalStatistics?.writesStopped == true {
        failures.append("durable writes had stopped after a failed flush to disk")
    }
    journal?.close()
    guard failures.isEmpty else {
        Log.error("stopped", [("reason", .string(failures.joined(separator: "; ")))])
        exit(1)
    }
    Log.info("stopped")
    exit(0)
}
