import JSON

extension Alert {
    /// Checks an answer to this alert: `{"action": <action id>, "fields"?: {<field id>: <string>} | null}`.
    ///
    /// Anything else is refused rather than stored, so the presenting screen only ever receives
    /// an answer it can read the same way every time.
    func check(answer: JSONValue) throws(PresentationError) {
        guard case .object(let members) = answer else {
            throw .invalidAlertResult("an alert's result must be an object with an \"action\"")
        }
        for member in members where member.key != "action" && member.key != "fields" {
            throw .invalidAlertResult("an alert's result has no member \"\(member.key)\"")
        }
        guard let action = answer["action"] else {
            throw .invalidAlertResult("an alert's result needs an \"action\"")
        }
        guard let actionID = action.stringValue else {
            throw .invalidAlertResult("\"action\" must be a string")
        }
        guard actions.contains(where: { $0.id == actionID }) else { throw .unknownAlertAction(actionID) }
        // `null` is no fields, as a left-out member is everywhere else in a request.
        guard let fieldValues = answer["fields"], fieldValues != .null else { return }
        guard case .object(let texts) = fieldValues else {
            throw .invalidAlertResult("\"fields\" must be an object")
        }
        for text in texts {
            guard fields.contains(where: { $0.id == text.key }) else {
                throw .invalidAlertResult("the alert has no field \"\(text.key)\"")
            }
            guard text.value.stringValue != nil else {
                throw .invalidAlertResult("the field \"\(text.key)\" must be a string")
            }
        }
    }
}
