using System.Diagnostics;
using ConcurrencySandbox.Api.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace ConcurrencySandbox.Tests.Hosting;

public class ParentProcessWatchTests
{
    [Fact]
    public async Task ApiStopsByItselfOnceTheParentItWasGivenHasExited()
    {
        using var parent = Process.Start(new ProcessStartInfo("true") { UseShellExecute = false })!;
        await parent.WaitForExitAsync();

        await using var server = await SandboxServer.StartAsync($"ParentProcess:Id={parent.Id}");
        var lifetime = server.Services.GetRequiredService<IHostApplicationLifetime>();
        var stopping = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var registration = lifetime.ApplicationStopping.Register(stopping.SetResult);

        // A generous bound so a busy machine cannot fail it: the watch checks once a second.
        var first = await Task.WhenAny(stopping.Task, Task.Delay(TimeSpan.FromSeconds(60)));
        Assert.Same(stopping.Task, first);
    }

    [Fact]
    public void CheckingALiveParentAllocatesNothing()
    {
        using var parent = Process.GetCurrentProcess();
        Assert.False(ParentProcessWatch.HasGone(parent));

        // Lazy one-time set-ups may land in a window; a check that allocated every time would leave no window at 0 B.
        var windows = new List<long>();
        for (var window = 0; window < 20; window++)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            for (var check = 0; check < 100; check++)
            {
                ParentProcessWatch.HasGone(parent);
            }

            windows.Add(GC.GetAllocatedBytesForCurrentThread() - before);
            if (windows[^1] == 0)
            {
                return;
            }
        }

        Assert.Fail($"Every window of 100 checks allocated: {string.Join(", ", windows)} B.");
    }
}
