/// What every target's `<Target>_main` hands to `runFuzzer`: SwiftPM links each executable with
/// an entry point named after its module, so libFuzzer is started from there.
public typealias FuzzArguments = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
