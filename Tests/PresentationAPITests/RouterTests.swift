import MicroHTTP
import Testing

/// The router alone: how paths are cut into segments and which pattern wins.
@Suite("Router")
struct RouterTests {
    enum Name: Sendable, Equatable {
        case list, create, item, itemDelete, importItems, child, deep
    }

    let router: Router<Name> = {
        var router = Router<Name>()
        router.add(.get, "/v1/items", .list)
        router.add(.post, "/v1/items", .create)
        router.add(.get, "/v1/items/{id}", .item)
        router.add(.delete, "/v1/items/{id}", .itemDelete)
        router.add(.post, "/v1/items/import", .importItems)
        router.add(.get, "/v1/items/{id}/children/{child}", .child)
        router.add(.get, "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/{p}", .deep)
        return router
    }()

    /// The route and parameters found, or nil.
    func found(_ method: HTTPMethod, _ path: String) -> (Name, RouteParameters)? {
        if case .found(let name, let parameters) = router.match(method, path) { return (name, parameters) }
        return nil
    }

    func allowed(_ method: HTTPMethod, _ path: String) -> [HTTPMethod]? {
        if case .methodNotAllowed(let allowed) = router.match(method, path) { return allowed }
        return nil
    }

    @Test("A pattern's parameters come back by name, as they were in the path")
    func parameters() throws {
        let (name, parameters) = try #require(found(.get, "/v1/items/42/children/é-7"))
        #expect(name == .child)
        #expect(parameters["id"] == "42")
        #expect(parameters["child"] == "é-7")
        #expect(parameters["other"] == nil)
        #expect(parameters.pattern == "/v1/items/{id}/children/{child}")
    }

    @Test("A trailing slash is the same path; an empty segment in the middle matches no parameter")
    func slashes() throws {
        #expect(found(.get, "/v1/items/")?.0 == .list)
        #expect(found(.get, "/v1/items/7/")?.1["id"] == "7")
        #expect(found(.get, "/v1/items//children/3") == nil)
        #expect(found(.get, "/v1//items") == nil)
        #expect(found(.get, "/") == nil)
        #expect(found(.get, "") == nil)
        #expect(found(.get, "//") == nil)
    }

    @Test("Literals compare exactly, byte for byte")
    func literals() {
        #expect(found(.get, "/v1/Items") == nil)
        #expect(found(.get, "/v1/item") == nil)
        #expect(found(.get, "/v1/itemss") == nil)
        #expect(found(.get, "/v2/items") == nil)
    }

    @Test("The most literal pattern wins, and decides what the path allows")
    func specificity() throws {
        #expect(found(.post, "/v1/items/import")?.0 == .importItems)
        // `import` is not the item "import": the literal pattern owns the path.
        #expect(found(.get, "/v1/items/import") == nil)
        #expect(allowed(.get, "/v1/items/import") == [.post])
        #expect(found(.get, "/v1/items/importer")?.1["id"] == "importer")
    }

    @Test("HEAD is answered by GET routes; other methods get the path's Allow list")
    func methods() throws {
        #expect(found(.head, "/v1/items/5")?.0 == .item)
        #expect(found(.delete, "/v1/items/5")?.0 == .itemDelete)
        #expect(allowed(.put, "/v1/items/5") == [.get, .delete, .head])
        #expect(allowed(.delete, "/v1/items") == [.get, .post, .head])
        guard case .notFound = router.match(.put, "/nowhere") else {
            Issue.record("an unknown path is not found, whatever the method")
            return
        }
    }

    @Test("Sixteen segments match; a longer path matches nothing")
    func depth() throws {
        #expect(found(.get, "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p")?.1["p"] == "p")
        #expect(found(.get, "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q") == nil)
        #expect(found(.get, "/" + Array(repeating: "x", count: 1000).joined(separator: "/")) == nil)
    }
}
