/// The error codes' names as logs and telemetry write them (`name_resolution`, `timeout`, …).
extension HTTPTransportError.Code {
    /// The code's name in snake case (`nameResolution` → `name_resolution`); `_OTHER` for
    /// `.other` (OpenTelemetry's `error.type` fallback).
    var snakeCaseName: String { Self.snakeCaseNames[self] ?? "_OTHER" }

    /// Every code's name, made once from the cases themselves, so a code added later has a name too.
    private static let snakeCaseNames: [HTTPTransportError.Code: String] = {
        var names: [HTTPTransportError.Code: String] = [:]
        for code in HTTPTransportError.Code.allCases where code != .other {
            names[code] = snakeCase(String(describing: code))
        }
        names[.other] = "_OTHER"
        return names
    }()

    /// `nameResolution` → `name_resolution`, `invalidURL` → `invalid_url`, `fileIO` → `file_io`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        var previousWasUpper = true
        for character in name {
            if character.isUppercase {
                if !previousWasUpper { result.append("_") }
                result.append(contentsOf: character.lowercased())
                previousWasUpper = true
            } else {
                result.append(character)
                previousWasUpper = false
            }
        }
        return result
    }
}

extension HTTPTransportError {
    /// The failure's kind as logs and telemetry write it: the status code of an HTTP-status
    /// failure (as OpenTelemetry's `error.type` asks), else the code's `snakeCaseName`.
    var kindName: String {
        if code == .httpStatus, let status = httpStatusCode { return String(status.rawValue) }
        return code.snakeCaseName
    }
}
