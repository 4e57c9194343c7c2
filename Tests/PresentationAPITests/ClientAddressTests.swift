#if canImport(Glibc)
    import Glibc
#endif
import Testing

@testable import MicroHTTP

@Suite("Client addresses")
struct ClientAddressTests {
    @Test("IPv4 and IPv6 read and print as people write them; anything else is refused")
    func textForms() throws {
        for text in ["203.0.113.7", "0.0.0.0", "255.255.255.255", "10.0.100.9", "1.20.3.40", "::", "::1", "fe80::1:2"] {
            #expect(ClientAddress(text)?.description == text)
        }
        #expect(ClientAddress("203.0.113.7")?.isIPv4 == true)
        #expect(ClientAddress("2001:db8:0:0:0:0:0:1")?.description == "2001:db8::1")
        #expect(ClientAddress("2001:db8::1")?.isIPv4 == false)
        // A dual-stack socket reports an IPv4 client as IPv4-mapped: the same client.
        #expect(ClientAddress("::ffff:203.0.113.7") == ClientAddress("203.0.113.7"))
        for text in ["", "localhost", "203.0.113", "2001:db8::1/64", "[::1]", "203.0.113.7:80"] {
            #expect(ClientAddress(text) == nil, "\(text)")
        }
    }

    @Test("A limit counts an IPv4 address alone and an IPv6 address by its /64")
    func limitKeys() throws {
        let v4 = try #require(ClientAddress("198.51.100.1"))
        #expect(v4.limitKey == v4)
        #expect(v4.limitKey != ClientAddress("198.51.100.2")?.limitKey)
        let v6 = try #require(ClientAddress("2001:db8:1:2:aaaa:bbbb:cccc:dddd"))
        #expect(v6.limitKey == ClientAddress("2001:db8:1:2::")
            && v6.limitKey == ClientAddress("2001:db8:1:2::1")?.limitKey)
        #expect(v6.limitKey != ClientAddress("2001:db8:1:3::1")?.limitKey)
    }

    @Test("A socket address from the C library reads as the same address, either family; another family is none")
    func socketAddresses() throws {
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = UInt16(8080).bigEndian
        #expect(inet_pton(AF_INET, "198.51.100.23", &v4.sin_addr) == 1)
        let fromV4 = withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ClientAddress($0) } }
        #expect(fromV4 == ClientAddress("198.51.100.23"))

        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        #expect(inet_pton(AF_INET6, "2001:db8::17", &v6.sin6_addr) == 1)
        let fromV6 = withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ClientAddress($0) } }
        #expect(fromV6?.description == "2001:db8::17")
        // A dual-stack socket's IPv4 client.
        #expect(inet_pton(AF_INET6, "::ffff:198.51.100.23", &v6.sin6_addr) == 1)
        let mapped = withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ClientAddress($0) } }
        #expect(mapped == fromV4 && mapped?.description == "198.51.100.23")

        var unix = sockaddr_un()
        unix.sun_family = sa_family_t(AF_UNIX)
        let fromUnix = withUnsafePointer(to: &unix) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ClientAddress($0) } }
        #expect(fromUnix == nil)
    }
}
