import MicroHTTP
import Testing

@testable import PresentationAPI

@Suite("Creation rate limit")
struct CreationRateLimitTests {
    static let client = ClientAddress("198.51.100.1")!
    static let other = ClientAddress("198.51.100.2")!

    @Test("A client may create a minute's allowance at once, then waits as long as one takes to refill")
    func burstThenWait() {
        let limit = CreationRateLimit(perMinute: 6, now: 0)
        for _ in 0..<6 { #expect(limit.take(for: Self.client, at: 0) == nil) }
        // One creation refills every 10 s.
        #expect(limit.take(for: Self.client, at: 0) == 10)
        #expect(limit.take(for: Self.client, at: 4) == 6)
        // A refusal takes nothing: at 10 s one is there, and only one.
        #expect(limit.take(for: Self.client, at: 10) == nil)
        #expect(limit.take(for: Self.client, at: 10) == 10)
        // Another address has its own allowance meanwhile.
        #expect(limit.take(for: Self.other, at: 10) == nil)
    }

    @Test("The wait is rounded up to whole seconds and never said to be 0")
    func waitRounding() {
        let limit = CreationRateLimit(perMinute: 7, now: 0)
        for _ in 0..<7 { #expect(limit.take(for: Self.client, at: 0) == nil) }
        // 60/7 = 8.57 s to refill one.
        #expect(limit.take(for: Self.client, at: 0) == 9)
        #expect(limit.take(for: Self.client, at: 8.5) == 1)
        #expect(limit.take(for: Self.client, at: 8.58) == nil)
    }

    @Test("Refill stops at the allowance: a long-idle client gets one minute's worth, not more")
    func refillIsCapped() {
        let limit = CreationRateLimit(perMinute: 3, now: 0)
        for _ in 0..<3 { #expect(limit.take(for: Self.client, at: 0) == nil) }
        for _ in 0..<3 { #expect(limit.take(for: Self.client, at: 3_600) == nil) }
        #expect(limit.take(for: Self.client, at: 3_600) == 20)
    }

    @Test("IPv6 clients in one /64 share an allowance")
    func ipv6Prefix() throws {
        let limit = CreationRateLimit(perMinute: 2, now: 0)
        #expect(limit.take(for: try #require(ClientAddress("2001:db8::1")), at: 0) == nil)
        #expect(limit.take(for: try #require(ClientAddress("2001:db8::2")), at: 0) == nil)
        #expect(limit.take(for: try #require(ClientAddress("2001:db8::3")), at: 0) == 30)
        #expect(limit.take(for: try #require(ClientAddress("2001:db8:0:1::1")), at: 0) == nil)
    }

    @Test("A clock that steps back refills nothing and gives nothing twice")
    func clockStepsBack() {
        let limit = CreationRateLimit(perMinute: 2, now: 100)
        #expect(limit.take(for: Self.client, at: 100) == nil)
        #expect(limit.take(for: Self.client, at: 100) == nil)
        #expect(limit.take(for: Self.client, at: 40) != nil)
        // 30 s after the last time seen (100), one has refilled; the step back counted for nothing.
        #expect(limit.take(for: Self.client, at: 129) != nil)
        #expect(limit.take(for: Self.client, at: 130) == nil)
    }

    @Test("After the clock steps back the wait said is the whole wait: a client that keeps to it is let in")
    func waitAfterStepBack() throws {
        let limit = CreationRateLimit(perMinute: 2, now: 100)
        #expect(limit.take(for: Self.client, at: 100) == nil)
        #expect(limit.take(for: Self.client, at: 100) == nil)
        // A minute back: the bucket refills from 100 on (nothing twice), so one is there at 130.
        let wait = try #require(limit.take(for: Self.client, at: 40))
        #expect(wait == 90)
        #expect(limit.take(for: Self.client, at: 40 + Double(wait) - 1) != nil)
        #expect(limit.take(for: Self.client, at: 40 + Double(wait)) == nil)
    }

    @Test("After the clock steps back, addresses are still forgotten two minutes after they were seen")
    func generationsAfterStepBack() throws {
        let limit = CreationRateLimit(perMinute: 1, capacity: 2, now: 1_000)
        #expect(limit.take(for: Self.client, at: 1_000) == nil)
        // The clock steps back 1,000 s, and another address creates.
        #expect(limit.take(for: Self.other, at: 0) == nil)
        #expect(limit.counts.tracked == 2)
        // Over two minutes later by the clock as it is now, neither is kept, so a new address is
        // tracked and limited, not let through uncounted as at capacity.
        let third = try #require(ClientAddress("198.51.100.3"))
        #expect(limit.take(for: third, at: 130) == nil)
        #expect(limit.take(for: third, at: 130) == 60)
        #expect(limit.counts == (tracked: 1, untracked: 0))
    }

    @Test("Only addresses seen in the last two minutes are kept, and forgetting one changes no answer")
    func memoryIsBounded() throws {
        let limit = CreationRateLimit(perMinute: 2, now: 0)
        for index in 0..<100 {
            let address = try #require(ClientAddress("10.0.\(index / 256).\(index % 256)"))
            #expect(limit.take(for: address, at: 0) == nil)
        }
        #expect(limit.counts.tracked == 100)
        // A minute on, the first generation is the older one, still kept.
        #expect(limit.take(for: Self.client, at: 60) == nil)
        #expect(limit.counts.tracked == 101)
        // Another minute on it goes: its buckets had refilled, so a client of it starts full.
        #expect(limit.take(for: Self.client, at: 120) == nil)
        #expect(limit.counts.tracked == 1)
        let first = try #require(ClientAddress("10.0.0.0"))
        #expect(limit.take(for: first, at: 120) == nil && limit.take(for: first, at: 120) == nil)
        #expect(limit.take(for: first, at: 120) == 30)
        // A bucket not yet full carries into the next generation as it is (a fresh one would
        // allow two at 180.25). At 175.5 it holds 1.85 and gives one.
        #expect(limit.take(for: first, at: 175.5) == nil)
        #expect(limit.take(for: first, at: 175.5) == 5)
        #expect(limit.take(for: first, at: 180.25) == nil)
        #expect(limit.take(for: first, at: 180.25) == 30)
        // After two quiet minutes nothing is kept.
        #expect(limit.take(for: Self.other, at: 400) == nil)
        #expect(limit.counts.tracked == 1)
    }

    @Test("Past its capacity a new address is let through untracked; tracked ones stay limited")
    func capacity() {
        let limit = CreationRateLimit(perMinute: 1, capacity: 2, now: 0)
        #expect(limit.take(for: Self.client, at: 0) == nil)
        #expect(limit.take(for: Self.other, at: 0) == nil)
        let third = ClientAddress("198.51.100.3")!
        #expect(limit.take(for: third, at: 0) == nil)
        #expect(limit.take(for: third, at: 0) == nil)
        #expect(limit.counts == (tracked: 2, untracked: 2))
        #expect(limit.take(for: Self.client, at: 0) == 60)
    }
}
