import Foundation
import Presentation
@testable import PresentationAPI
import Testing

/// One timer renews every followed session whose ttl is too short for the heartbeat: it ticks
/// only while there is such a session followed, and the rest cost nothing.
@Suite("Lease renewals")
struct LeaseRenewalsTests {
    let store = InMemorySessionStore(limits: Limits(sessionTTL: 4))

    @Test("A session whose ttl outlasts twice the heartbeat needs no renewal and starts no timer")
    func longLivedSessionsNeedNone() throws {
        let renewals = LeaseRenewals(store: store)
        let created = try store.create(root: try ScreenSpec(name: "home"), timeToLive: 40, now: Date())
        #expect(renewals.follow(created.session.id, openedWith: created.session.tokenDigest, renewedOtherwiseEvery: 15) == nil)
        #expect(!renewals.isTicking)
    }

    @Test("The timer ticks while a short-lived session is followed, and stops when the last follower leaves")
    func tickingFollowsTheFollowers() throws {
        let renewals = LeaseRenewals(store: store)
        let created = try store.create(root: try ScreenSpec(name: "home"), timeToLive: nil, now: Date())
        let digest = created.session.tokenDigest
        let first = try #require(renewals.follow(created.session.id, openedWith: digest, renewedOtherwiseEvery: 15))
        let second = try #require(renewals.follow(created.session.id, openedWith: digest, renewedOtherwiseEvery: 15))
        #expect(renewals.isTicking)
        first()
        #expect(renewals.isTicking, "one follower is left")
        second()
        #expect(!renewals.isTicking)
        second()
        #expect(!renewals.isTicking, "a second stop changes nothing")
        let again = try #require(renewals.follow(created.session.id, openedWith: digest, renewedOtherwiseEvery: 15))
        #expect(renewals.isTicking)
        again()
    }
}
