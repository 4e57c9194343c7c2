extension Array {
    /// Appends `element`, growing the storage to exactly the new count when it must grow.
    ///
    /// A session's arrays (a stack's path, the open presentations) are shared with the stored
    /// session whenever a change is made on a copy, so an append copies them anyway, and the
    /// standard growth would then double them: a 3-screen path kept room for 4, 72 bytes a
    /// session. Growing exactly costs nothing extra where the copy is made regardless; in a
    /// batch that appends several times to a fresh copy it costs one copy per append, and
    /// batches are short (`Limits.maxBatchSteps`).
    mutating func appendTightly(_ element: Element) {
        reserveCapacity(count + 1)
        append(element)
    }
}
