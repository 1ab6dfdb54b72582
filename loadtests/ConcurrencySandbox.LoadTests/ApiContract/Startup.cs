namespace ConcurrencySandbox.LoadTests.ApiContract;

/// <summary>How the API process starts: the line it prints once it serves, and the setting that ties it to its parent.</summary>
public static class Startup
{
    /// <summary>The fixed start of the API's ready line, followed by the address it listens on.</summary>
    public const string ReadyLinePrefix = "ConcurrencySandbox API ready at ";

    /// <summary>The API stops by itself once the process with this pid has gone (the API's ParentProcessWatch).</summary>
    public const string ParentProcessSetting = "ParentProcess:Id";

    /// <summary>The address announced by <paramref name="line"/> if it is the ready line, else null.</summary>
    public static Uri? ReadyAddress(string? line) =>
        line is not null && line.StartsWith(ReadyLinePrefix, StringComparison.Ordinal)
            && Uri.TryCreate(line[ReadyLinePrefix.Length..].Trim(), UriKind.Absolute, out var address)
            ? address
            : null;
}
