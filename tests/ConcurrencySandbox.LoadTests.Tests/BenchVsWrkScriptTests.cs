using System.Globalization;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>loadtests/bench-vs-wrk.sh refuses bad arguments before it builds, starts or pins anything: exit 2, one line naming the cause.</summary>
public class BenchVsWrkScriptTests
{
    private static readonly string Script = Path.Combine(FolderLayeringTests.RepositoryRoot(), "loadtests", "bench-vs-wrk.sh");
    private static readonly string Library = Path.Combine(FolderLayeringTests.RepositoryRoot(), "scripts", "wrk-bench-lib.sh");

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

    /// <summary>
    /// A runner taking one 1-second turn in N (its clock running on while it is stopped) gets a reporting interval of 2 s
    /// per tool, so it reports once per 2 s of its own turns as a run of its own does, not N times as often per request;
    /// its warm-up, run alone, waits for the rows of about 6 s of load.
    /// </summary>
    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    public async Task ARunnerTakingOneTurnInNReportsOncePerTwoSecondsOfItsOwnTurns(int tools)
    {
        var (code, output, error) = await CommandRun.RunAsync("bash", ["-c", $"source '{Library}' && reporting_for {tools} && echo \"$reporting_seconds $warm_rows\""]);

        Assert.True(code == 0, error);
        var figures = output.Split(' ', StringSplitOptions.TrimEntries).Select(f => int.Parse(f, CultureInfo.InvariantCulture)).ToArray();
        var (intervalSeconds, warmRows) = (figures[0], figures[1]);
        Assert.Equal(2.0, (double)intervalSeconds / tools);
        Assert.InRange(warmRows * intervalSeconds, 6, 6 + intervalSeconds - 1);
    }

    private static Task<(int Code, string Output, string Error)> RunScriptAsync(params string[] args) =>
        CommandRun.RunAsync("bash", [Script, .. args]);
}
