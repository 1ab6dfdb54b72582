using ConcurrencySandbox.Contracts.Reports;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>How a request ended. Only an answer (ok or another status) has a latency; a timeout is a lower bound and a connection error is neither.</summary>
public enum RequestEnd
{
    /// <summary>A 2xx answer.</summary>
    Ok,

    /// <summary>An answer with another status (its latency is still a latency).</summary>
    HttpStatus,

    /// <summary>The client gave up after its timeout: the request took at least that long.</summary>
    Timeout,

    /// <summary>No usable answer: the connection was refused or reset, the body could not be read, or the request was never sent.</summary>
    ConnectionError,
}

/// <summary>One request's ending: how it ended, the HTTP status when an answer came, the error's message when it failed without one.</summary>
public readonly record struct RequestOutcome(RequestEnd End, int StatusCode = 0, string? Error = null)
{
    public static RequestOutcome Success { get; } = new(RequestEnd.Ok, 200);

    public static RequestOutcome TimedOut { get; } = new(RequestEnd.Timeout);

    /// <summary>An answer: ok when 2xx, else an HTTP status failure.</summary>
    public static RequestOutcome Answered(int statusCode) => new(statusCode is >= 200 and < 300 ? RequestEnd.Ok : RequestEnd.HttpStatus, statusCode);

    public static RequestOutcome Failed(string error) => new(RequestEnd.ConnectionError, 0, error);

    /// <summary>True when an answer arrived, so the time it took is a latency.</summary>
    public bool Completed => End is RequestEnd.Ok or RequestEnd.HttpStatus;
}

/// <summary>How a set of requests ended, counted.</summary>
public readonly record struct OutcomeCounts(long Ok, long HttpErrors, long TimedOut, long ConnectionErrors)
{
    public long Requests => Ok + HttpErrors + TimedOut + ConnectionErrors;

    /// <summary>Every request that did not end ok: HTTP errors, timeouts and connection errors.</summary>
    public long Failed => HttpErrors + TimedOut + ConnectionErrors;

    /// <summary>Requests that got an answer; the latency statistics cover exactly these.</summary>
    public long Completed => Ok + HttpErrors;

    /// <summary>Requests without an answer (timed out or connection error): not latencies.</summary>
    public long NotCompleted => TimedOut + ConnectionErrors;

    public double FailedPercent => Requests == 0 ? 0 : 100.0 * Failed / Requests;

    public static OutcomeCounts operator +(OutcomeCounts a, OutcomeCounts b) =>
        new(a.Ok + b.Ok, a.HttpErrors + b.HttpErrors, a.TimedOut + b.TimedOut, a.ConnectionErrors + b.ConnectionErrors);

    /// <summary>"3 of 52 failed (2 timed out, 1 HTTP error(s))", or "all 52 ok": the summary's wording (<see cref="SummaryOutcomes.Describe"/>).</summary>
    public string Describe() => new SummaryOutcomes(Ok, HttpErrors, TimedOut, ConnectionErrors, Requests, Failed, Completed, NotCompleted, FailedPercent).Describe();
}

/// <summary>One row of the status and error table: "HTTP 503", "timed out (client timeout)" or a connection error's message, and how often.</summary>
public sealed record OutcomeCount(string What, long Count);
