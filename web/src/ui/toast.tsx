import * as Toast from '@radix-ui/react-toast';
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

export type ToastInput = {
  title: string;
  description?: string;
  tone?: 'ok' | 'error';
  /** An action button (e.g. Undo); `altText` says how to do it without the toast (Radix requires it). */
  action?: { label: string; altText: string; onAction: () => void };
  durationMs?: number;
  /** Called when the toast closes by itself or is dismissed, not when its action ran. */
  onExpire?: () => void;
};

type Item = ToastInput & { id: number };

const ToastContext = createContext<(toast: ToastInput) => void>(() => undefined);

/** Results confirm in a toast (Radix: announced politely, swipe/Escape to dismiss, F8 to reach). */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<Item[]>([]);
  // The open toasts' callbacks, outside state so closing one runs its onExpire exactly once.
  const open = useRef(new Map<number, Item>());
  const push = useCallback((toast: ToastInput) => {
    const item = { ...toast, id: Date.now() + Math.random() };
    open.current.set(item.id, item);
    setItems((current) => [...current, item]);
  }, []);
  const close = useCallback((id: number, acted: boolean) => {
    const item = open.current.get(id);
    if (!item) return;
    open.current.delete(id);
    if (!acted) item.onExpire?.();
    setItems((current) => current.filter((t) => t.id !== id));
  }, []);
  const value = useMemo(() => push, [push]);
  return (
    <ToastContext.Provider value={value}>
      <Toast.Provider swipeDirection="right">
        {children}
        {items.map((item) => (
          <Toast.Root
            key={item.id}
            className={`toast toast-${item.tone ?? 'ok'}`}
            duration={item.durationMs ?? 5000}
            onOpenChange={(open) => {
              if (!open) close(item.id, false);
            }}
          >
            <Toast.Title className="toast-title">{item.title}</Toast.Title>
            {item.description ? <Toast.Description>{item.description}</Toast.Description> : null}
            {item.action ? (
              <Toast.Action
                altText={item.action.altText}
                className="button"
                onClick={() => {
                  item.action?.onAction();
                  close(item.id, true);
                }}
              >
                {item.action.label}
              </Toast.Action>
            ) : null}
            <Toast.Close className="button ghost" aria-label="Dismiss">
              ×
            </Toast.Close>
          </Toast.Root>
        ))}
        <Toast.Viewport className="toast-viewport" label="Notifications ({hotkey})" />
      </Toast.Provider>
    </ToastContext.Provider>
  );
}

export const useToast = () => useContext(ToastContext);
