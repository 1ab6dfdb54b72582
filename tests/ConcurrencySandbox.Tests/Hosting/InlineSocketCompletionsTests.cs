using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>A child of a process that turned inline socket completions on gets the setting the process started with, not the process's own.</summary>
public class InlineSocketCompletionsTests
{
    [Fact]
    public void AChildOfAProcessStartedWithoutTheVariableGetsNone()
    {
        var child = new Dictionary<string, string?> { [InlineSocketCompletions.Variable] = "1", ["OTHER"] = "kept" };

        InlineSocketCompletions.Restore(child, startedWith: null);

        Assert.False(child.ContainsKey(InlineSocketCompletions.Variable));
        Assert.Equal("kept", child["OTHER"]);
    }

    [Fact]
    public void AChildGetsTheValueTheProcessStartedWith()
    {
        var child = new Dictionary<string, string?> { [InlineSocketCompletions.Variable] = "1" };

        InlineSocketCompletions.Restore(child, startedWith: "0");

        Assert.Equal("0", child[InlineSocketCompletions.Variable]);
    }
}
