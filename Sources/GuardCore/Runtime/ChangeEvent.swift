import Foundation

/// The facts of one change for one key path, before they are tailored to each observance's options.
struct ChangeEvent {
    var kind: KeyValueChange.Kind
    var indexes: IndexSet?
    var oldValue: Any?
    var newValue: Any?
}
