using System.Text;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>
/// A terminal's output with one status line kept under everything else and redrawn in place (carriage return and
/// "erase line") once a second on its own timer: every line written through this writer goes above it. The status
/// is read from <see cref="RunProgress.State"/>, so drawing it costs the load nothing.
/// </summary>
internal sealed class StatusConsole : TextWriter
{
    private const string EraseLine = "\r\u001b[2K";
    private const int FallbackWidth = 120;
    private static readonly TimeSpan Redraw = TimeSpan.FromSeconds(1);

    private readonly Lock _gate = new();
    private readonly TextWriter _terminal;
    private readonly Func<string> _status;
    private readonly Func<int> _width;
    private readonly ITimer _timer;
    private bool _statusShown;
    private bool _midLine;
    private bool _disposed;

    /// <param name="width">The terminal's width in columns now: the status is cut to fit, since a wrapped line cannot be redrawn in place.</param>
    public StatusConsole(TextWriter terminal, Func<string> status, Func<int> width, TimeProvider clock)
    {
        _terminal = terminal;
        _status = status;
        _width = width;
        _timer = clock.CreateTimer(_ => DrawStatus(), null, TimeSpan.Zero, Redraw);
    }

    public override Encoding Encoding => _terminal.Encoding;

    public override void Write(char value) => Write(value.ToString());

    public override void Write(char[] buffer, int index, int count) => Write(new string(buffer, index, count));

    public override void Write(string? value)
    {
        if (string.IsNullOrEmpty(value))
        {
            return;
        }
        lock (_gate)
        {
            HideStatus();
            _terminal.Write(value);
            _midLine = !value.EndsWith('\n');
            if (!_midLine && !_disposed)
            {
                ShowStatus();
            }
            _terminal.Flush();
        }
    }

    public override void WriteLine(string? value) => Write(value + Environment.NewLine);

    public override void WriteLine() => Write(Environment.NewLine);

    /// <summary>Redraws the status line, unless a line is being written.</summary>
    public void DrawStatus()
    {
        lock (_gate)
        {
            if (_midLine || _disposed)
            {
                return;
            }
            HideStatus();
            ShowStatus();
            _terminal.Flush();
        }
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

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _timer.Dispose();
            lock (_gate)
            {
                _disposed = true;
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
        }
        base.Dispose(disposing);
    }
}
