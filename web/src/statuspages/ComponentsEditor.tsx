import { useEffect, useRef, useState, type DragEvent, type FormEvent, type KeyboardEvent } from 'react';
import { explainError, useAccess } from '../ui/permission';
import { Field } from '../ui/Field';
import { useIntegrations, useProjects } from '../workspace/queries';
import { useCheckChoices, usePageWrites, type ComponentTarget, type PageComponent } from './api';

const move = <T,>(list: T[], from: number, to: number): T[] => {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item as T);
  return next;
};

/**
 * The page's components in their public order. Reorder by dragging a row, or from the keyboard:
 * focus a row's handle and press ArrowUp/ArrowDown (focus stays on the moved row, and a live
 * region says where it went). Each move is one `reorder` call with the whole order; the server's
 * answer (refetched) is what stays on screen.
 */
export function ComponentsEditor({ pageId, components, canWrite }: { pageId: number; components: PageComponent[]; canWrite: boolean }) {
  const writes = usePageWrites(pageId);
  const { role, workspaceId } = useAccess();
  const projects = useProjects(canWrite ? workspaceId : null);
  const checks = useCheckChoices(canWrite ? workspaceId : null);
  const integrations = useIntegrations(canWrite ? workspaceId : null);
  const [target, setTarget] = useState('');
  const [order, setOrder] = useState(components);
  const [said, setSaid] = useState('');
  const [dragging, setDragging] = useState<number | null>(null);
  const [name, setName] = useState('');
  const focusAfter = useRef<number | null>(null);
  const handles = useRef(new Map<number, HTMLButtonElement>());
  useEffect(() => setOrder(components), [components]);
  useEffect(() => {
    if (focusAfter.current !== null) handles.current.get(focusAfter.current)?.focus();
    focusAfter.current = null;
  }, [order]);

  const commit = (next: PageComponent[], moved: PageComponent) => {
    setOrder(next);
    focusAfter.current = moved.id;
    setSaid(`${moved.name} moved to position ${next.indexOf(moved) + 1} of ${next.length}.`);
    writes.reorder.mutate(next.map((c) => c.id));
  };
  const onKey = (event: KeyboardEvent, index: number) => {
    const to = event.key === 'ArrowUp' ? index - 1 : event.key === 'ArrowDown' ? index + 1 : null;
    if (to === null || to < 0 || to >= order.length) return;
    event.preventDefault();
    commit(move(order, index, to), order[index] as PageComponent);
  };
  const onDrop = (event: DragEvent, index: number) => {
    event.preventDefault();
    if (dragging === null || dragging === index) return;
    commit(move(order, dragging, index), order[dragging] as PageComponent);
    setDragging(null);
  };
  const add = (event: FormEvent) => {
    event.preventDefault();
    const chosen = target || (projects.data?.[0] ? `project:${projects.data[0].id}` : '');
    const [kind, raw] = chosen.split(':');
    const ref = Number(raw);
    const follows: ComponentTarget = kind === 'check' ? { checkId: ref } : kind === 'integration' ? { integrationId: ref } : { projectId: ref };
    writes.addComponent.mutate({ name, target: follows }, { onSuccess: () => setName('') });
  };
  const failed = writes.reorder.error ?? writes.addComponent.error ?? writes.removeComponent.error;

  return (
    <section className="card section" aria-labelledby="components-title">
      <h2 id="components-title">Components</h2>
      {canWrite ? (
        <p id="reorder-help" className="muted">
          Drag a row, or focus its handle and press the up or down arrow key, to change the order on the public page.
        </p>
      ) : null}
      {order.length === 0 ? <p className="muted">No components yet.</p> : null}
      <ol className="component-list">
        {order.map((c, index) => (
          <li
            key={c.id}
            data-component={c.name}
            className={dragging === index ? 'dragging' : undefined}
            draggable={canWrite}
            onDragStart={() => setDragging(index)}
            onDragEnd={() => setDragging(null)}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => onDrop(e, index)}
          >
            {canWrite ? (
              <button
                type="button"
                className="button ghost drag-handle"
                aria-label={`Reorder ${c.name}, position ${index + 1} of ${order.length}`}
                aria-describedby="reorder-help"
                ref={(el) => {
                  if (el) handles.current.set(c.id, el);
                  else handles.current.delete(c.id);
                }}
                onKeyDown={(e) => onKey(e, index)}
              >
                <span aria-hidden="true">⠿</span>
              </button>
            ) : null}
            <span className="component-name">{c.name}</span>
            {c.groupName ? <span className="muted"> · {c.groupName}</span> : null}
            {canWrite ? (
              <button type="button" className="button ghost" aria-label={`Remove ${c.name}`} onClick={() => writes.removeComponent.mutate(c.id)}>
                Remove
              </button>
            ) : null}
          </li>
        ))}
      </ol>
      <p className="visually-hidden" role="status">
        {said}
      </p>
      {canWrite ? (
        <form className="inline-form" aria-label="Add a component" onSubmit={add}>
          <Field label="Component name">{(aria) => <input {...aria} name="componentName" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
          <Field label="Its status follows">
            {(aria) => (
              <select {...aria} name="componentTarget" value={target} onChange={(e) => setTarget(e.target.value)}>
                <optgroup label="Projects (worst check of the project)">
                  {projects.data?.map((p) => (
                    <option key={p.id} value={`project:${p.id}`}>
                      {p.name}
                    </option>
                  ))}
                </optgroup>
                {checks.data && checks.data.length > 0 ? (
                  <optgroup label="Checks">
                    {checks.data.map((c) => (
                      <option key={c.id} value={`check:${c.id}`}>
                        {c.name}
                      </option>
                    ))}
                  </optgroup>
                ) : null}
                {integrations.data && integrations.data.length > 0 ? (
                  <optgroup label="Integrations (their open alerts)">
                    {integrations.data.map((i) => (
                      <option key={i.id} value={`integration:${i.id}`}>
                        {i.name}
                      </option>
                    ))}
                  </optgroup>
                ) : null}
              </select>
            )}
          </Field>
          <button type="submit" className="button" disabled={writes.addComponent.isPending}>
            Add component
          </button>
        </form>
      ) : null}
      {failed ? (
        <p className="form-error" role="alert">
          {explainError(failed, role)}
        </p>
      ) : null}
    </section>
  );
}
