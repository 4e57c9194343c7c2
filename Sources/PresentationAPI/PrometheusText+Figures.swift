import Presentation

/// The storage's and the process's figures as metric families.
extension PrometheusText {
    /// One unlabelled family: name, type, help, value (nil: left out).
    private typealias Figure = (name: String, type: String, help: String, value: Double?)

    mutating func add(_ storage: JournalStatistics) {
        let figures: [Figure] = [
            ("presentation_storage_writes_total", "counter",
             "Writes (saves, removals, lease updates) sent to durable storage, those the disk refused included.", Double(storage.writes)),
            ("presentation_storage_transactions_total", "counter",
             "Transactions that carried them: fewer than writes when commits were grouped.", Double(storage.transactions)),
            ("presentation_storage_syncs_total", "counter",
             "Flushes to the disk, each making every transaction before it durable.", Double(storage.syncs)),
            ("presentation_storage_queued_writes", "gauge", "Writes waiting for the next transaction.",
             Double(storage.queuedWrites)),
            ("presentation_storage_stored_bytes", "gauge", "Bytes of stored sessions, as --max-stored-bytes counts them.",
             Double(storage.storedBytes)),
            ("presentation_storage_engine_memory_bytes", "gauge",
             "Heap the storage engine (SQLite) holds: page cache and statements.", Double(storage.engineMemoryBytes)),
            ("presentation_storage_writes_stopped", "gauge",
             "1 once a failed flush to disk stopped every durable write until a restart (health checks then fail).",
             storage.writesStopped ? 1 : 0),
        ]
        add(figures)
    }

    mutating func add(_ process: ProcessStatistics) {
        let figures: [Figure] = [
            ("process_cpu_seconds_total", "counter", "User and system CPU time spent.", process.cpuSeconds),
            ("process_resident_memory_bytes", "gauge", "Resident memory size.", process.residentBytes.map(Double.init)),
            ("process_virtual_memory_bytes", "gauge", "Virtual memory size.", process.virtualBytes.map(Double.init)),
            ("process_threads", "gauge", "Operating system threads.", process.threads.map(Double.init)),
            ("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch.", process.startTime),
            ("process_open_fds", "gauge", "Open file descriptors.", process.openDescriptors.map(Double.init)),
            ("process_max_fds", "gauge", "Most file descriptors the process may open.", process.maxDescriptors.map(Double.init)),
        ]
        add(figures)
    }

    private mutating func add(_ figures: [Figure]) {
        for figure in figures {
            single(figure.name, type: figure.type, help: figure.help, figure.value)
        }
    }
}
