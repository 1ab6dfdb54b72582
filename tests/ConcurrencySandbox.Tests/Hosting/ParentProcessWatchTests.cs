using System.Diagnostics;
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
}
