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
import MicroHTTP
import Presentation
import SessionStorage

/// Opens the store the options ask for and logs what start-up recovered; stops the process when
/// the stored sessions cannot be trusted, rather than serve wrong state.
enum StoreSetup {
    static func open(_ options: Options) -> (store: InMemorySessionStore, journal: SQLiteJournal?) {
        switch options.storage {
        case .memory:
            Log.info("storage", [("kind", .string("memory")), ("sessions_loaded", .int(0)), ("duration_ms", .int(0))])
            return (InMemorySessionStore(limits: options.limits, memoryBudget: memoryBudget(options)), nil)
        case .sqlite:
            let (store, journal) = restore(options)
            // Reading the stored sessions back allocates and frees far more than the sessions keep
            // (rows, the log's records, the fold), interleaved with what they keep, and glibc holds
            // on to the freed pages: 100,000 sessions came back with 57 MB of free heap, their
            // server's RSS 242 MB against 186 MB for the server that made them. They are handed back
            // to the kernel, once, before the server serves (docs/performance.md, item 96).
            ProcessMemory.giveBackFreePages()
            return (store, journal)
        }
    }

    /// The bound on the process's resident memory past which new sessions are refused; a
    /// restart restores every stored session whatever it is.
    private static func memoryBudget(_ options: Options) -> MemoryBudget? {
        options.maxMemoryBytes.map {
            MemoryBudget(limit: $0, measure: { ProcessMemory.residentBytes }, reclaim: ProcessMemory.giveBackFreePages)
        }
    }

    /// The durable store with every stored session back in it, and the start-up's log line.
    private static func restore(_ options: Options) -> (store: InMemorySessionStore, journal: SQLiteJournal) {
        let recovery: SessionDatabase.Recovery
        do {
            recovery = try SessionDatabase.open(
                directory: options.dataDirectory, limits: options.limits, now: Date(), cores: AvailableProcessors.count)
        } catch {
            Log.error("storage_failed", [("reason", .string(error.description))])
            Log.standardError("presentation-server: \(error)")
            exit(1)
        }
        let store = InMemorySessionStore(
            limits: options.limits, journal: recovery.journal, memoryBudget: memoryBudget(options),
            writeBudget: options.maxSessionWriteRate.map { WriteBudget(bytesPerSecond: $0) },
            nearDeadlines: NearDeadlineRenewals(under: nearDeadlineBound(sweepInterval(options.limits))))
        // Said when it happens: otherwise the first word of it was a sweep's failure, up to
        // 30 s later (and only with deadlines to write), or the stop's last line.
        recovery.journal.whenWritesStop { error in
            Log.error("writes_stopped", [("reason", .string(failureReason(error)))])
        }
        for (session, lease, storedBytes) in recovery.sessions {
            store.restore(session, lease: lease, storedBytes: storedBytes)
        }
        let (seconds, attoseconds) = recovery.duration.components
        Log.info(
            "storage",
            [
                ("kind", .string("sqlite")), ("path", .string(recovery.journal.path)),
                ("sessions_loaded", .int(recovery.sessions.count)), ("sessions_expired", .int(recovery.expired)),
                ("stored_bytes", .int(recovery.storedBytes)),
                ("duration_ms", .int(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))),
            ])
        return (store, recovery.journal)
    }

    /// Every `interval`: frees expired sessions (memory and disk) and writes the idle deadlines
    /// that reads moved. A lookup already treats an expired session as gone, so the interval only
    /// bounds how long an expired session takes room.
    ///
    /// With durable storage it ticks at least once a second: between two sweeps, each tick writes the deadlines of
    /// sessions read since with a deadline on disk near (`NearDeadlineRenewals`) whose written one comes before
    /// the next sweep is done, so that a kill loses at most a tick of their renewals. Written
    /// only by the sweep, a session whose `ttl` is shorter than its interval, read all along,
    /// was found expired by a server restarted at once.
    static func startSweep(_ store: InMemorySessionStore, every interval: Double) -> RepeatingWork {
        // In memory nothing is noted, and nothing outlives the process: no ticks between sweeps.
        let ticks = SweepTicks(every: store.nearDeadlines == nil ? 1 : Int(interval.rounded(.up)))
        let tick = interval / Double(ticks.every)
        return RepeatingWork(label: "session-sweep", every: tick) {
            do {
                guard ticks.next() else {
                    // A tick's failure is not logged: what it could not write stays noted, the
                    // sweep tries it too and says why, once an interval rather than every second.
                    _ = try? store.writeNearDeadlines(writtenExpiringBefore: Date().addingTimeInterval(interval + tick))
                    return
                }
                let removed = try store.removeExpired(now: Date())
                if removed > 0 {
                    Log.info("sessions_expired", [("count", .int(removed)), ("sessions", .int(store.count))])
                }
                try store.writeLeases()
            } catch {
                Log.error("sweep_failed", [("reason", .string(failureReason(error)))])
            }
        }
    }

    /// How near a read the deadline on disk must be for its renewal to need writing before the
    /// next sweep: one further than two intervals (a second more for the tick) lies past the
    /// next sweep's end, and that sweep writes it. Near it comes from a short `ttl`, or a long
    /// one read after nearly as long idle.
    static func nearDeadlineBound(_ interval: Double) -> Int {
        Int((2 * interval).rounded(.up)) + 2
    }

    /// A quarter of the default time-to-live, between 1 and 30 seconds.
    static func sweepInterval(_ limits: Limits) -> Double {
        min(30, max(1, Double(limits.sessionTTL) / 4))
    }
}
