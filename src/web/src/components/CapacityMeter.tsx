import { useId } from 'react';

interface CapacityMeterProps {
  label: string;
  /** What servers reserve on the Node. */
  reserved: number;
  /** What the Node offers (its allocatable amount); 0 until the Agent has reported. */
  total: number;
  format: (amount: number) => string;
}

/**
 * Reserved of allocatable as a `<meter>` whose value is also written out, so the numbers are
 * there for screen readers and for anyone who cannot tell the bar's length.
 */
export function CapacityMeter({ label, reserved, total, format }: CapacityMeterProps) {
  const id = useId();
  if (total <= 0) {
    return <div className="capacity"><span className="capacity-label">{label}</span> <span className="capacity-text">not reported yet</span></div>;
  }
  const free = Math.max(0, total - reserved);
  const text = `${format(reserved)} of ${format(total)} reserved, ${format(free)} free`;
  return (
    <div className="capacity">
      <span id={`${id}-label`} className="capacity-label">{label}</span>
      <meter min={0} max={total} value={Math.min(reserved, total)} low={total * 0.7} high={total * 0.9} optimum={0} aria-labelledby={`${id}-label`} aria-describedby={`${id}-text`} />
      <span id={`${id}-text`} className="capacity-text">{text}</span>
    </div>
  );
}
