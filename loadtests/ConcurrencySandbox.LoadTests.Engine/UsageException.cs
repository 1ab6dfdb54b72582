namespace ConcurrencySandbox.LoadTests;

/// <summary>A problem the user can fix (bad option, unreachable target, malformed config): one line, exit code 2.</summary>
public sealed class UsageException(string message) : Exception(message);
