import FeedModel
import Hummingbird
import LibraryStore

/// A user as the backend's `UserResponse` (app/api/users.py) has it. feedctl keeps no display
/// name or avatar colour: `display_name` is the name, `avatar_color` the backend's default;
/// `has_pin` is whether a password is set; `last_login_at` the newest session's start.
struct UserResponse: ResponseEncodable, Sendable {
    var id: Int64
    var username: String
    var displayName: String
    var avatarColor: String
    var hasPin: Bool
    var isAdmin: Bool
    var createdAt: String
    @Nullable var lastLoginAt: String?

    init(_ user: User, lastLogin: Int64?) {
        id = user.id.rawValue; username = user.name; displayName = user.name; avatarColor = UserPublic.defaultColor
        hasPin = user.hasPassword; isAdmin = user.isAdmin; createdAt = WireDate.string(user.createdAt)
        lastLoginAt = lastLogin.map(WireDate.string)
    }

    enum CodingKeys: String, CodingKey {
        case id, username, displayName = "display_name", avatarColor = "avatar_color", hasPin = "has_pin", isAdmin = "is_admin"
        case createdAt = "created_at", lastLoginAt = "last_login_at"
    }
}

/// `GET /api/users`: the backend's `UsersListResponse`.
struct UsersListResponse: ResponseEncodable, Sendable {
    var users: [UserResponse]
    var total: Int
}

/// The backend's `UserPublic` (app/api/auth.py), what login and `/api/auth/me` answer.
struct UserPublic: Encodable, Sendable {
    /// The backend's default `avatar_color`.
    static let defaultColor = "#6366f1"
    var id: Int64
    var username: String
    var displayName: String
    var avatarColor: String
    var hasPin: Bool

    init(id: UserID, name: String, hasPassword: Bool) {
        self.id = id.rawValue; username = name; displayName = name; avatarColor = Self.defaultColor; hasPin = hasPassword
    }

    enum CodingKeys: String, CodingKey {
        case id, username, displayName = "display_name", avatarColor = "avatar_color", hasPin = "has_pin"
    }
}

/// `POST /api/auth/login`: the backend's `LoginResponse`, every key written.
struct LoginResponse: ResponseEncodable, Sendable {
    var success: Bool
    @Nullable var token: String? = nil
    @Nullable var user: UserPublic? = nil
    @Nullable var message: String? = nil
}

/// `GET /api/auth/me`: the backend's `CurrentUserResponse`.
struct CurrentUserResponse: ResponseEncodable, Sendable {
    var authenticated: Bool
    @Nullable var user: UserPublic?
}

/// `POST /api/auth/login`: the iOS guide's `{username, password}` and the backend's
/// `{username, pin, device_name}` alike (`password` wins when both come).
struct LoginBody: Decodable, Sendable {
    var username: String
    var password: String?
    var pin: String?
    var deviceName: String?
    enum CodingKeys: String, CodingKey { case username, password, pin, deviceName = "device_name" }
}

/// `POST /api/users`: the backend's `CreateUserRequest` (`display_name` and `avatar_color` are
/// accepted and not kept), with `password` as another name for `pin`.
struct CreateUserBody: Decodable, Sendable {
    var username: String
    var displayName: String?
    var pin: String?
    var password: String?
    var isAdmin: Bool?
    var avatarColor: String?
    enum CodingKeys: String, CodingKey {
        case username, displayName = "display_name", pin, password, isAdmin = "is_admin", avatarColor = "avatar_color"
    }
}

/// `PUT /api/users/{id}/pin`: the backend's `SetPinRequest` (`new_pin` null clears it).
struct SetPinBody: Decodable, Sendable {
    var newPin: String?
    var currentPin: String?
    enum CodingKeys: String, CodingKey { case newPin = "new_pin", currentPin = "current_pin" }
}

/// `{"success": true}` and its kin.
struct SuccessResponse: ResponseEncodable, Sendable {
    var success: Bool
}

struct SetPinResponse: ResponseEncodable, Sendable {
    var success: Bool
    var hasPin: Bool
    enum CodingKeys: String, CodingKey { case success, hasPin = "has_pin" }
}

/// `POST /api/auth/session/validate`.
struct ValidResponse: ResponseEncodable, Sendable {
    var valid: Bool
}
