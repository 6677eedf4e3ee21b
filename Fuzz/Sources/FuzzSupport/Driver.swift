import FuzzDriver

/// The signature of `LLVMFuzzerTestOneInput`.
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Starts libFuzzer with the program's arguments and `test`; returns its exit status.
public func runFuzzer(_ argc: CInt, _ argv: FuzzArguments, _ test: FuzzTest) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, test)
}
