namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>Tests that read or change process-wide state (thread pool settings, work counters) run alone.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessWideCollection
{
    public const string Name = "Process-wide state";
}
