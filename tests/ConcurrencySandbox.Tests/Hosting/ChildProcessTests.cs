using System.Diagnostics;
using ConcurrencySandbox.Contracts.Hosting;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>The one launcher the runner and the tests start children through, driven with the API's own build.</summary>
[Trait("Category", "Slow")]
public class ChildProcessTests
{
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(60);
    private static readonly string ApiAssembly = Path.Combine(AppContext.BaseDirectory, "ConcurrencySandbox.Api.dll");

    private static ChildProcess StartApi() =>
        ChildProcess.Start(new ChildLaunch(ApiAssembly, TestHostArguments.For([])));

    [Fact]
    public async Task ReadyLinesAreParsedEvenWhenTheyWereWrittenBeforeTheCallerAsked()
    {
        await using var child = StartApi();

        // The control plane's line comes after the API's; asking for it first leaves the API's line to be found among the kept lines.
        var control = await child.WaitForLineAsync(ApiStartup.ControlReadyAddress, HangGuard);
        var api = await child.WaitForLineAsync(ApiStartup.ReadyAddress, HangGuard);

        Assert.True(api.IsLoopback);
        Assert.NotEqual(0, api.Port);
        Assert.NotEqual(api.Port, control.Port);
        Assert.Contains(child.Output, line => line.StartsWith(ApiStartup.ReadyLinePrefix, StringComparison.Ordinal));
    }

    [Fact]
    public async Task AChildThatExitsBeforeItsReadyLineReportsItsExitCodeAndLastErrors()
    {
        var missing = Path.Combine(AppContext.BaseDirectory, "NoSuchAssembly.dll");
        await using var child = ChildProcess.Start(new ChildLaunch(missing, []));

        var exited = await Assert.ThrowsAsync<ChildExitedException>(() => child.WaitForLineAsync(ApiStartup.ReadyAddress, HangGuard));

        Assert.NotEqual(0, exited.ExitCode);
        Assert.Equal(await child.WaitForExitAsync(HangGuard), exited.ExitCode);
        Assert.NotEmpty(exited.LastErrors);
        Assert.All(exited.LastErrors, line => Assert.Contains(line, child.Output));
    }

    [Fact]
    public async Task DisposeKillsTheRunningChild()
    {
        var child = StartApi();
        await child.WaitForLineAsync(ApiStartup.ReadyAddress, HangGuard);
        var id = child.Id;

        await child.DisposeAsync();

        Assert.Throws<ArgumentException>(() => Process.GetProcessById(id));
    }
}
