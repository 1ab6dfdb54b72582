using System.Buffers.Binary;
using ConcurrencySandbox.Contracts.Streaming;

namespace ConcurrencySandbox.Experiments.Streaming;

/// <summary>
/// The wire format. On connect the server sends a 16-byte header: magic "CSSF", version, implementation, message
/// bytes, interval. Then every interval one frame: sequence number (8 bytes), checksum (4 bytes), payload.
/// The payload is derived from the sequence number, so a client can check every byte without any shared state.
/// </summary>
public static class StreamProtocol
{
    public const int HeaderBytes = 16;

    /// <summary>Sequence number and checksum in front of each payload.</summary>
    public const int FramePrefixBytes = 12;

    public const int MinMessageBytes = 1;

    public const int MaxMessageBytes = 65_536;

    private const uint Magic = 0x46535343; // "CSSF" little-endian

    private const ushort Version = 1;

    public static int FrameBytes(int messageBytes) => FramePrefixBytes + messageBytes;

    public static void WriteHeader(Span<byte> destination, StreamingImplementation implementation, int messageBytes, int intervalMs)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(destination, Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[4..], Version);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[6..], (ushort)implementation);
        BinaryPrimitives.WriteInt32LittleEndian(destination[8..], messageBytes);
        BinaryPrimitives.WriteInt32LittleEndian(destination[12..], intervalMs);
    }

    /// <summary>Reads a header; null when it is not one of ours.</summary>
    public static StreamHeader? ReadHeader(ReadOnlySpan<byte> source)
    {
        if (source.Length < HeaderBytes
            || BinaryPrimitives.ReadUInt32LittleEndian(source) != Magic
            || BinaryPrimitives.ReadUInt16LittleEndian(source[4..]) != Version)
        {
            return null;
        }

        var implementation = (StreamingImplementation)BinaryPrimitives.ReadUInt16LittleEndian(source[6..]);
        var messageBytes = BinaryPrimitives.ReadInt32LittleEndian(source[8..]);
        var intervalMs = BinaryPrimitives.ReadInt32LittleEndian(source[12..]);
        return Enum.IsDefined(implementation) && messageBytes is >= MinMessageBytes and <= MaxMessageBytes && intervalMs >= 1
            ? new StreamHeader(implementation, messageBytes, intervalMs)
            : null;
    }

    /// <summary>Writes frame number <paramref name="sequence"/>; the destination is exactly one frame long.</summary>
    public static void WriteFrame(Span<byte> destination, long sequence)
    {
        var payload = destination[FramePrefixBytes..];
        FillPayload(payload, sequence);
        BinaryPrimitives.WriteInt64LittleEndian(destination, sequence);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[8..], Checksum(sequence, payload));
    }

    /// <summary>The frame's sequence number, and whether its checksum and payload are intact.</summary>
    public static (long Sequence, bool Intact) ReadFrame(ReadOnlySpan<byte> frame)
    {
        var sequence = BinaryPrimitives.ReadInt64LittleEndian(frame);
        var payload = frame[FramePrefixBytes..];
        var intact = BinaryPrimitives.ReadUInt32LittleEndian(frame[8..]) == Checksum(sequence, payload) && PayloadMatches(payload, sequence);
        return (sequence, intact);
    }

    private static void FillPayload(Span<byte> payload, long sequence)
    {
        for (var i = 0; i < payload.Length; i++)
        {
            payload[i] = PayloadByte(sequence, i);
        }
    }

    private static bool PayloadMatches(ReadOnlySpan<byte> payload, long sequence)
    {
        for (var i = 0; i < payload.Length; i++)
        {
            if (payload[i] != PayloadByte(sequence, i))
            {
                return false;
            }
        }

        return true;
    }

    private static byte PayloadByte(long sequence, int index) => unchecked((byte)((sequence * 31) + index));

    /// <summary>FNV-1a over the sequence number and the payload.</summary>
    private static uint Checksum(long sequence, ReadOnlySpan<byte> payload)
    {
        const uint prime = 16_777_619;
        var hash = 2_166_136_261;
        for (var shift = 0; shift < 64; shift += 8)
        {
            hash = unchecked((hash ^ (byte)(sequence >> shift)) * prime);
        }

        foreach (var value in payload)
        {
            hash = unchecked((hash ^ value) * prime);
        }

        return hash;
    }
}

/// <summary>What the server announced on connect.</summary>
public sealed record StreamHeader(StreamingImplementation Implementation, int MessageBytes, int IntervalMs)
{
    public int FrameBytes => StreamProtocol.FrameBytes(MessageBytes);
}
