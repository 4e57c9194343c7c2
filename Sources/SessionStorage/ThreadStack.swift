/// Stack of every thread the journal starts (its writer and sync threads, `startThread`; the
/// start-up's restore, `onJoinedThreads`): 8 MiB, glibc's usual default, whatever `ulimit -s`
/// says, as the request threads get (`HTTPServer.requestThreadStackBytes`). A thread started
/// without a size gets `ulimit -s`, and these threads recurse once per level of a session's
/// tree: decoding it at start-up, and writing a durable change's answer, which the sync thread
/// completes. A session 1,000 presentations deep overflowed a 256 KiB stack on either.
let journalThreadStackBytes = 8 << 20
