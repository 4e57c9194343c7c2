import Presentation

/// The storage's and the process's figures as metric families.
extension PrometheusText {
    mutating func add(_ storage: JournalStatistics) {
        single(
            "presentation_storage_writes_total", type: "counter",
            help: "Writes (saves, removals, lease updates) committed to durable storage.", storage.writes)
        single(
            "presentation_storage_transactions_total", type: "counter",
            help: "Transactions that carried them: fewer than writes when commits were grouped.", storage.transactions)
        single(
            "presentation_storage_syncs_total", type: "counter",
            help: "Flushes to the disk, each making every transaction before it durable.", storage.syncs)
        single(
            "presentation_storage_queued_writes", type: "gauge",
            help: "Writes waiting for the next transaction.", storage.queuedWrites)
        single(
            "presentation_storage_stored_bytes", type: "gauge",
            help: "Bytes of stored sessions, as --max-stored-bytes counts them.", storage.storedBytes)
        single(
            "presentation_storage_engine_memory_bytes", type: "gauge",
            help: "Heap the storage engine (SQLite) holds: page cache and statements.", storage.engineMemoryBytes)
    }

    mutating func add(_ process: ProcessStatistics) {
        single("process_cpu_seconds_total", type: "counter", help: "User and system CPU time spent.", process.cpuSeconds)
        single("process_resident_memory_bytes", type: "gauge", help: "Resident memory size.", process.residentBytes)
        single("process_virtual_memory_bytes", type: "gauge", help: "Virtual memory size.", process.virtualBytes)
        single("process_threads", type: "gauge", help: "Operating system threads.", process.threads)
        single(
            "process_start_time_seconds", type: "gauge", help: "Start time of the process since the Unix epoch.",
            process.startTime)
        single("process_open_fds", type: "gauge", help: "Open file descriptors.", process.openDescriptors)
        single("process_max_fds", type: "gauge", help: "Most file descriptors the process may open.", process.maxDescriptors)
    }
}
