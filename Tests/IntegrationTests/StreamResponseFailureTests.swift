import Foundation
import Testing

/// An event stream whose libmicrohttpd response cannot be made (the library out of memory)
/// must let go of all it took on when it was opened (its session's watch, its heartbeat, its
/// lease renewals), not hold them until restart. libmicrohttpd's
/// `MHD_create_response_from_callback` is made to fail while a flag file exists, by a library
/// loaded ahead of it into the real binary.
@Suite("A stream whose response cannot be made")
struct StreamResponseFailureTests {
    private static let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <stdint.h>
        #include <stdlib.h>
        #include <unistd.h>

        struct MHD_Response;

        struct MHD_Response *MHD_create_response_from_callback(
            uint64_t size, size_t block, void *reader, void *context, void *free) {
            const char *flag = getenv("FAILING_STREAM_RESPONSES");
            if (flag != NULL && access(flag, F_OK) == 0) return NULL;
            typedef struct MHD_Response *(*Real)(uint64_t, size_t, void *, void *, void *);
            return ((Real)dlsym(RTLD_NEXT, "MHD_create_response_from_callback"))(size, block, reader, context, free);
        }
        """

    @Test("The stream is closed and counted no more; streams opened afterwards work")
    func failedResponseReleasesTheStream() throws {
        let library = try PreloadedLibrary(name: "failingstreams", source: Self.source)
        let flag = library.directory + "/fail"
        let admin = String(repeating: "a", count: 40)
        let tokenFile = library.directory + "/admin-token"
        try Data(admin.utf8).write(to: URL(fileURLWithPath: tokenFile))
        let server = try ServerProcess.start(
            arguments: ["--port", "0", "--storage", "memory", "--admin-token-file", tokenFile],
            environment: library.environment(["FAILING_STREAM_RESPONSES": flag]), accessLog: false)
        defer { _ = try? server.terminate() }
        let port = UInt16(try server.port())
        let client = try HTTPConnection(port: port)
        let session = try client.createSession()
        let subscribers = { () throws -> Double? in
            metricSamples(try client.get("/metrics", token: admin).text)["presentation_event_subscribers"]
        }

        try #require(FileManager.default.createFile(atPath: flag, contents: nil))
        let refused = try HTTPConnection(port: port)
        #expect(throws: ClientError.self, "a stream was answered though its response could not be made") {
            _ = try EventStream(connection: refused, path: session.route("events"), headers: [("Authorization", "Bearer \(session.token)")])
        }
        #expect(try subscribers() == 0, "the stream that could not be answered is still held")

        try FileManager.default.removeItem(atPath: flag)
        let stream = try EventStream(
            connection: try HTTPConnection(port: port), path: session.route("events"),
            headers: [("Authorization", "Bearer \(session.token)")])
        #expect(stream.head.status == 200)
        #expect(try subscribers() == 1)
        try client.post("push", to: session, json: ["screen": "detail"]).expectSession(revision: 2)
        #expect(try stream.nextEvent().json().string("type") == "pushed")
    }
}
