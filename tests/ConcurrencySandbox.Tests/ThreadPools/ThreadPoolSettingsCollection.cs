namespace ConcurrencySandbox.Tests.ThreadPools;

/// <summary>
/// Tests that change the process-wide ThreadPool settings: they run one at a time, after the parallel tests,
/// and each restores what it changed.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ThreadPoolSettingsCollection
{
    public const string Name = "ThreadPool settings";
}
