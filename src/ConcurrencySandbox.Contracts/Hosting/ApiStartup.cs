namespace ConcurrencySandbox.Contracts.Hosting;

/// <summary>How the API process starts: the lines it prints once it serves, and the setting that ties it to its parent.</summary>
public static class ApiStartup
{
    /// <summary>The fixed start of the API's ready line, followed by the address it listens on.</summary>
    public const string ReadyLinePrefix = "ConcurrencySandbox API ready at ";

    /// <summary>The fixed start of the control plane's ready line, followed by the address it listens on.</summary>
    public const string ControlReadyLinePrefix = "ConcurrencySandbox control plane ready at ";

    /// <summary>The API stops by itself once the process with this pid has gone (the API's ParentProcessWatch).</summary>
    public const string ParentProcessSetting = "ParentProcess:Id";

    /// <summary>The address announced by <paramref name="line"/> if it is the API's ready line, else null.</summary>
    public static Uri? ReadyAddress(string? line) => AddressAfter(ReadyLinePrefix, line);

    /// <summary>The address announced by <paramref name="line"/> if it is the control plane's ready line, else null.</summary>
    public static Uri? ControlReadyAddress(string? line) => AddressAfter(ControlReadyLinePrefix, line);

    private static Uri? AddressAfter(string prefix, string? line) =>
        line is not null && line.StartsWith(prefix, StringComparison.Ordinal)
            && Uri.TryCreate(line[prefix.Length..].Trim(), UriKind.Absolute, out var address)
            ? address
            : null;
}
