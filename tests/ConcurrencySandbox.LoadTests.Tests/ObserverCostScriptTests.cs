namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>scripts/observer-cost.sh refuses bad arguments before it builds or starts anything: exit 2, one line naming the cause.</summary>
public class ObserverCostScriptTests
{
    private static readonly string Script = Path.Combine(FolderLayeringTests.RepositoryRoot(), "scripts", "observer-cost.sh");

    [Theory]
    [InlineData(new[] { "--observer", "stack" }, "--observer must be runner, watch, trace, session, routes, stacks, causes, calls or none, not 'stack'")]
    [InlineData(new[] { "--observer" }, "--observer must be runner, watch, trace, session, routes, stacks, causes, calls or none, not ''")]
    [InlineData(new[] { "--mode", "apart" }, "--mode must be shared or pinned, not 'apart'")]
    [InlineData(new[] { "--observer", "watch", "--mode" }, "--mode must be shared or pinned, not ''")]
    [InlineData(new[] { "0" }, "pairs must be 1..20, not '0'")]
    [InlineData(new[] { "3", "16x" }, "users must be 1..1024, not '16x'")]
    [InlineData(new[] { "3", "16", "5" }, "seconds must be 6..59 (the observer's parts take the first 5), not '5'")]
    [InlineData(new[] { "3", "16", "20", "1" }, "at most three numbers (pairs, users, seconds), not '3 16 20 1'")]
    public async Task BadArgumentsExitWithCodeTwoAndOneLineNamingTheCause(string[] args, string message)
    {
        var (code, output, error) = await CommandRun.RunAsync("bash", [Script, .. args]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal(message, error.Trim());
    }

    [Theory]
    [InlineData("--observer", "runner", "BASELINE_RUNNER is not a file: '/no/such.dll'")]
    [InlineData("--observer", "causes", "BASELINE_RUNNER goes with --observer runner or watch, not 'causes'")]
    public async Task ABaselineThatIsNoFileOrHasNoPartToCompareIsRefused(string option, string observer, string message)
    {
        var (code, output, error) = await CommandRun.RunAsync("env", ["BASELINE_RUNNER=/no/such.dll", "bash", Script, option, observer]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal(message, error.Trim());
    }

    [Theory]
    [InlineData("2")]
    [InlineData("yes")]
    public async Task AProfileSettingOtherThanZeroOrOneIsRefused(string profile)
    {
        var (code, output, error) = await CommandRun.RunAsync("env", [$"PROFILE={profile}", "bash", Script]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal($"PROFILE must be 0 or 1, not '{profile}'", error.Trim());
    }

    [Theory]
    [InlineData("0")]
    [InlineData("65")]
    [InlineData("4x")]
    public async Task UpstreamCallsOutsideOneToSixtyFourAreRefused(string calls)
    {
        var (code, output, error) = await CommandRun.RunAsync("env", [$"UPSTREAM_CALLS={calls}", "bash", Script, "--observer", "calls"]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal($"UPSTREAM_CALLS must be 1..64, not '{calls}'", error.Trim());
    }
}
