namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>loadtests/bench-vs-wrk.sh refuses bad arguments before it builds, starts or pins anything: exit 2, one line naming the cause.</summary>
public class BenchVsWrkScriptTests
{
    private static readonly string Script = Path.Combine(FolderLayeringTests.RepositoryRoot(), "loadtests", "bench-vs-wrk.sh");

    [Theory]
    [InlineData("--mode", "both", "--mode must be pinned or shared")]
    [InlineData("--mode", "", "--mode must be pinned or shared")]
    [InlineData("3", "64", "seconds must be 4..120")]
    [InlineData("ten", "64", "seconds must be 4..120")]
    [InlineData("8", "0", "connections must be 1..1024")]
    [InlineData("8", "64x", "connections must be 1..1024")]
    public async Task BadArgumentsExitWithCodeTwoAndOneLineNamingTheCause(string first, string second, string cause)
    {
        var (code, output, error) = await RunScriptAsync(first, second);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.StartsWith(cause, Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries)), StringComparison.Ordinal);
    }

    [Fact]
    public async Task PairsOutOfRangeAndExtraArgumentsAreRefused()
    {
        Assert.Equal(2, (await RunScriptAsync("--mode", "shared", "8", "64", "0")).Code);
        Assert.Equal(2, (await RunScriptAsync("8", "64", "3", "1")).Code);
    }

    [Theory]
    [InlineData("API_COUNTS")]
    [InlineData("RUNNER_TERMINAL")]
    [InlineData("PROFILE")]
    public async Task ASwitchSetOtherThanZeroOrOneIsRefused(string setting)
    {
        var (code, output, error) = await CommandRun.RunAsync("env", [$"{setting}=yes", "bash", Script, "8", "64"]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal($"{setting} must be 0 or 1, not 'yes'", error.Trim());
    }

    [Theory]
    [InlineData("AGENTS=5", "AGENTS must be 0..4 (local agent processes), not '5'")]
    [InlineData("AGENTS=three", "AGENTS must be 0..4 (local agent processes), not 'three'")]
    [InlineData("RUNNER_ARGS=--live", "RUNNER_ARGS' --live needs its port (--live 5680), not '--live'")]
    [InlineData("RUNNER_ARGS=--verbose --live page", "RUNNER_ARGS' --live needs its port (--live 5680), not '--verbose --live page'")]
    public async Task AnAgentCountOutOfRangeOrALivePageWithoutItsPortIsRefusedInOneLine(string setting, string message)
    {
        var (code, output, error) = await CommandRun.RunAsync("env", [setting, "bash", Script, "8", "64"]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal(message, error.Trim());
    }

    [Fact]
    public async Task WithoutWrkTheScriptSaysHowToInstallItInOneLineAndExitsTwo()
    {
        // A PATH with only the commands the script needs before its check (no wrk, no curl).
        var bin = Directory.CreateTempSubdirectory("bench-path-").FullName;
        try
        {
            foreach (var tool in new[] { "dirname", "getconf" })
            {
                File.CreateSymbolicLink(Path.Combine(bin, tool), Path.Combine("/usr/bin", tool));
            }

            var (code, output, error) = await CommandRun.RunAsync("env", [$"PATH={bin}", "/bin/bash", Script, "8", "64"]);

            Assert.Equal(2, code);
            Assert.Empty(output);
            Assert.Equal("wrk is not installed: apt-get install -y wrk", error.Trim());
        }
        finally
        {
            Directory.Delete(bin, recursive: true);
        }
    }

    private static Task<(int Code, string Output, string Error)> RunScriptAsync(params string[] args) =>
        CommandRun.RunAsync("bash", [Script, .. args]);
}
