import CYaia

@_cdecl("yaia_abi_version")
public func yaia_abi_version() -> Int32 { 1 }
