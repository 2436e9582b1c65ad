import { useToast } from './toast';

/** Copies text to the clipboard and says so in a toast (or says to copy by hand when the browser refuses). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const toast = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast({ title: 'Copied to the clipboard' });
    } catch {
      toast({ title: 'Could not copy', description: 'Select the text and copy it by hand.', tone: 'error' });
    }
  };
  return (
    <button type="button" className="button" aria-label={label} onClick={() => void copy()}>
      Copy
    </button>
  );
}
