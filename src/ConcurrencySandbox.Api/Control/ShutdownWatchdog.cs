using System.Runtime.InteropServices;
using ConcurrencySandbox.Api.Telemetry;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.ThreadPools;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Control;

/// <summary>
/// Makes SIGTERM and SIGINT end the process within Control:ShutdownSeconds even when the ThreadPool is starved:
/// the host stops on pool threads, so on a starved pool it never finishes. The runtime calls termination signal
/// handlers on a thread of their own; this one arms a dedicated thread that waits for the host to stop and,
/// if it does not, logs the in-flight requests it abandons and exits.
/// </summary>
public sealed class ShutdownWatchdog : IDisposable
{
    /// <summary>The exit code when the watchdog had to end the process.</summary>
    public const int AbandonedExitCode = 3;

    private readonly ManualResetEventSlim _stopped = new();
    private readonly InFlightRequests _inFlight;
    private readonly TimeSpan _timeout;
    private readonly PosixSignalRegistration[] _registrations;
    private int _armed;

    public ShutdownWatchdog(InFlightRequests inFlight, IOptions<ControlOptions> options, IHostApplicationLifetime lifetime)
    {
        _inFlight = inFlight;
        _timeout = TimeSpan.FromSeconds(options.Value.ShutdownSeconds);
        lifetime.ApplicationStopped.Register(_stopped.Set);
        _registrations = [PosixSignalRegistration.Create(PosixSignal.SIGTERM, Arm), PosixSignalRegistration.Create(PosixSignal.SIGINT, Arm)];
    }

    public void Dispose()
    {
        foreach (var registration in _registrations)
        {
            registration.Dispose();
        }
    }

    private void Arm(PosixSignalContext context)
    {
        if (Interlocked.Exchange(ref _armed, 1) == 0)
        {
            new Thread(() => Watch(context.Signal)) { IsBackground = true, Name = "Shutdown watchdog" }.Start();
        }
    }

    private void Watch(PosixSignal signal)
    {
        if (_stopped.Wait(_timeout))
        {
            return;
        }

        var pool = ThreadPoolSnapshot.Capture();
        var abandoned = _inFlight.Describe();
        // Console, not ILogger: the logger's pipeline may need the starved pool, and the process ends right after.
        Console.Error.WriteLine(
            $"Shutdown watchdog: the host did not stop within {_timeout.TotalSeconds:0} s of {signal} " +
            $"(thread pool: {pool.ThreadCount} threads, {pool.PendingWorkItemCount} queued work items, max {pool.MaxWorkerThreads}); " +
            $"abandoning {abandoned.Count} in-flight request(s) and exiting with code {AbandonedExitCode}.");
        foreach (var request in abandoned)
        {
            Console.Error.WriteLine($"Shutdown watchdog: abandoned {request}");
        }

        Console.Error.Flush();
        Environment.Exit(AbandonedExitCode);
    }
}
