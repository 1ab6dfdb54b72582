namespace ConcurrencySandbox.Tests.Receive;

/// <summary>Tests that start receive runs go one at a time, so the runner's activity counters move only for the test reading them.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ReceiveRunsCollection
{
    public const string Name = "Receive runs";
}
