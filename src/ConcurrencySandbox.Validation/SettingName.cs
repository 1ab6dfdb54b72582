namespace ConcurrencySandbox.Validation;

/// <summary>How start-up validation names a setting, so the message says what to fix in either form.</summary>
public static class SettingName
{
    /// <summary>For example "ThreadPool:MinWorkerThreads (env ThreadPool__MinWorkerThreads)".</summary>
    public static string Of(string section, string name) => $"{section}:{name} (env {section}__{name})";
}
