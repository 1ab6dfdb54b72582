namespace ConcurrencySandbox.Platform.Hosting;

/// <summary>
/// Runs a load generator's socket continuations on the thread that polled them, as wrk runs its event loop, instead of
/// queueing each one to a pool thread (the runtime's <c>DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS</c>, read once, at
/// the process's first socket operation). The setting is an environment variable, so children would inherit it:
/// <see cref="ChildProcess"/> hands every child the value this process started with, and the API being measured runs as configured.
/// With it on, code that runs after an awaited socket operation may be on the poll thread itself: it must not block on
/// other socket I/O (a synchronous diagnostics IPC call did, and waited for the thread it was blocking).
/// </summary>
public static class InlineSocketCompletions
{
    public const string Variable = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";

    private static bool _enabled;
    private static string? _startedWith;

    /// <summary>Turns inline completions on for this process; call it before the process's first socket operation.</summary>
    public static void EnableInThisProcess()
    {
        if (!_enabled)
        {
            _startedWith = Environment.GetEnvironmentVariable(Variable);
            _enabled = true;
        }
        Environment.SetEnvironmentVariable(Variable, "1");
    }

    /// <summary>A child's environment as this process started: the variable as it was, or absent.</summary>
    public static void GiveChildTheStartingValue(IDictionary<string, string?> childEnvironment)
    {
        if (_enabled)
        {
            Restore(childEnvironment, _startedWith);
        }
    }

    /// <summary>Sets the variable in <paramref name="environment"/> to <paramref name="startedWith"/>, or removes it when that is null.</summary>
    public static void Restore(IDictionary<string, string?> environment, string? startedWith)
    {
        if (startedWith is null)
        {
            environment.Remove(Variable);
        }
        else
        {
            environment[Variable] = startedWith;
        }
    }
}
