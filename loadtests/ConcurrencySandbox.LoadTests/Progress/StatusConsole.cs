using System.Collections.Concurrent;
using System.Text;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>
/// A terminal's output with one status line kept under everything else and redrawn in place (carriage return and
/// "erase line") once a second: every line written through this writer goes above it.
/// <para>
/// One thread of its own does all the terminal's writing, in the order the text was handed in: <see cref="Write(string)"/>
/// only queues, so no caller ever waits for the terminal or for another caller, and no lock is held while anything
/// is called (the status is read from <see cref="RunProgress.State"/>, an immutable snapshot, on that thread). A terminal
/// that stops reading blocks that thread alone: the load goes on and the report is still written. The timer only asks
/// for a redraw, and skips its turn while the previous one is still queued, so a slow terminal never piles up callbacks.
/// </para>
/// </summary>
internal sealed class StatusConsole : TextWriter
{
    private const string EraseLine = "\r\u001b[2K";
    private const int FallbackWidth = 120;
    private static readonly TimeSpan Redraw = TimeSpan.FromSeconds(1);
    // How long disposing waits for the queued text to reach the terminal: a terminal that stopped reading does not hold up the exit.
    private static readonly TimeSpan DrainWait = TimeSpan.FromSeconds(5);

    private readonly BlockingCollection<string?> _queue = [];
    private readonly TextWriter _terminal;
    private readonly Func<string> _status;
    private readonly Func<int> _width;
    private readonly ITimer _timer;
    private readonly Thread _writer;
    // 1 while a redraw is queued: the timer's next tick skips its turn instead of queueing another.
    private int _redrawQueued;
    private int _skippedRedraws;
    // The writer thread's own state.
    private bool _statusShown;
    private bool _midLine;

    /// <param name="width">The terminal's width in columns now: the status is cut to fit, since a wrapped line cannot be redrawn in place.</param>
    public StatusConsole(TextWriter terminal, Func<string> status, Func<int> width, TimeProvider clock)
    {
        _terminal = terminal;
        _status = status;
        _width = width;
        _writer = new Thread(WriteQueued) { IsBackground = true, Name = "status console" };
        _writer.Start();
        _timer = clock.CreateTimer(_ => RequestRedraw(), null, TimeSpan.Zero, Redraw);
    }

    public override Encoding Encoding => _terminal.Encoding;

    /// <summary>The redraws the timer skipped because the previous one had not been drawn yet.</summary>
    internal int SkippedRedraws => Volatile.Read(ref _skippedRedraws);

    public override void Write(char value) => Write(value.ToString());

    public override void Write(char[] buffer, int index, int count) => Write(new string(buffer, index, count));

    public override void Write(string? value)
    {
        if (string.IsNullOrEmpty(value))
        {
            return;
        }
        if (!Enqueue(value))
        {
            // Disposed (the run is over): straight to the terminal, as any writer would.
            _terminal.Write(value);
        }
    }

    public override void WriteLine(string? value) => Write(value + Environment.NewLine);

    public override void WriteLine() => Write(Environment.NewLine);

    /// <summary>Asks the writer thread to redraw the status line, unless a redraw is already queued.</summary>
    public void RequestRedraw()
    {
        if (Interlocked.Exchange(ref _redrawQueued, 1) == 1)
        {
            Interlocked.Increment(ref _skippedRedraws);
            return;
        }
        if (!Enqueue(null))
        {
            Volatile.Write(ref _redrawQueued, 0);
        }
    }

    /// <summary>Queues text (null: a redraw) for the writer thread; false once the console is disposed.</summary>
    private bool Enqueue(string? item)
    {
        try
        {
            return _queue.TryAdd(item);
        }
        catch (InvalidOperationException)
        {
            // Disposed between the check and the add.
            return false;
        }
    }

    private void WriteQueued()
    {
        try
        {
            // Each pass writes what has been queued since the last, then draws the status once under it.
            while (_queue.TryTake(out var first, Timeout.Infinite))
            {
                Put(first);
                while (_queue.TryTake(out var next))
                {
                    Put(next);
                }
                if (!_midLine)
                {
                    ShowStatus();
                }
                _terminal.Flush();
            }
            // The last status stays on screen as the run's final line.
            if (!_midLine)
            {
                HideStatus();
                ShowStatus();
                _terminal.WriteLine();
                _statusShown = false;
            }
            _terminal.Flush();
        }
        catch (IOException)
        {
            // The terminal went away (closed pty, broken pipe): nothing more can be shown.
        }
        catch (ObjectDisposedException)
        {
            // The terminal's writer was closed under us.
        }
    }

    private void Put(string? text)
    {
        HideStatus();
        if (text is null)
        {
            Volatile.Write(ref _redrawQueued, 0);
            return;
        }
        _terminal.Write(text);
        _midLine = !text.EndsWith('\n');
    }

    private void HideStatus()
    {
        if (_statusShown)
        {
            _terminal.Write(EraseLine);
            _statusShown = false;
        }
    }

    private void ShowStatus()
    {
        var line = _status();
        // A terminal that reports no size (a pty some tools open) gets a common width.
        var columns = _width();
        var width = (columns > 0 ? Math.Max(20, columns) : FallbackWidth) - 1;
        _terminal.Write(line.Length > width ? line[..(width - 1)] + "…" : line);
        _statusShown = true;
    }

    /// <summary>Stops the redraws, lets the writer thread write what is queued and the final status line, waiting up to <see cref="DrainWait"/> for it.</summary>
    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _timer.Dispose();
            _queue.CompleteAdding();
            _writer.Join(DrainWait);
        }
        base.Dispose(disposing);
    }
}
