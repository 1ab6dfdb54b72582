using System.Buffers;

namespace ConcurrencySandbox.Experiments.Streaming;

/// <summary>
/// Fixed-size blocks shared by every connection's pipe, handed back when a pipe has sent a segment; a block is
/// allocated only when none is free. MemoryPool&lt;byte&gt;.Shared would allocate a new owner object per rent and, with
/// thousands of pipes holding segments, outgrow the shared ArrayPool's per-core caches and allocate arrays.
/// </summary>
internal sealed class BlockMemoryPool(int blockBytes) : MemoryPool<byte>
{
    private readonly Stack<Block> _free = new();
    private readonly Lock _gate = new();

    public override int MaxBufferSize => blockBytes;

    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(minBufferSize, blockBytes);
        lock (_gate)
        {
            if (_free.TryPop(out var block))
            {
                return block;
            }
        }

        return new Block(this, GC.AllocateUninitializedArray<byte>(blockBytes, pinned: true));
    }

    protected override void Dispose(bool disposing)
    {
    }

    private void Return(Block block)
    {
        lock (_gate)
        {
            _free.Push(block);
        }
    }

    private sealed class Block(BlockMemoryPool pool, byte[] array) : IMemoryOwner<byte>
    {
        public Memory<byte> Memory => array;

        public void Dispose() => pool.Return(this);
    }
}
